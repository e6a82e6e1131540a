/**
 * Writes the linked image as the SBPF v0 shared object the loader accepts (ET_DYN,
 * EM_BPF, e_flags 0, identity layout address == file offset, no program headers, syscalls
 * as R_BPF_64_32 dynamic relocations against undefined .dynsym entries).
 */
import type { LinkedImage } from './relocate.ts';

/** File offset (and address) of .text: right after the 64-byte ELF header. */
export const TEXT_OFFSET = 64;

const SHT_PROGBITS = 1;
const SHT_STRTAB = 3;
const SHT_DYNAMIC = 6;
const SHT_REL = 9;
const SHT_DYNSYM = 11;
const SHF_WRITE = 1n;
const SHF_ALLOC = 2n;
const SHF_EXECINSTR = 4n;
const DT = { NULL: 0n, STRTAB: 5n, SYMTAB: 6n, STRSZ: 10n, SYMENT: 11n, REL: 17n, RELSZ: 18n, RELENT: 19n };
const R_BPF_64_32 = 10n;

interface OutSection {
  name: string;
  type: number;
  flags: bigint;
  bytes: Uint8Array;
  align: number;
  entsize: number;
  link?: string;
  info?: number;
  offset: number;
}

class StringTable {
  private bytes: number[] = [0];
  private seen = new Map<string, number>();
  add(text: string): number {
    const known = this.seen.get(text);
    if (known !== undefined) return known;
    const at = this.bytes.length;
    this.bytes.push(...new TextEncoder().encode(text), 0);
    this.seen.set(text, at);
    return at;
  }
  build(): Uint8Array {
    return Uint8Array.from(this.bytes);
  }
}

const alignUp = (value: number, align: number): number => Math.ceil(value / align) * align;

/** Builds the complete .so file for `image` (which must have been linked at TEXT_OFFSET). */
export function writeSharedObject(image: LinkedImage): Uint8Array {
  if (image.textAddress !== TEXT_OFFSET) throw new Error('image must be linked at TEXT_OFFSET');
  const dynstr = new StringTable();
  const names = [...new Set(image.syscalls.map((s) => s.name))].sort();
  const symbolIndex = new Map(names.map((name, i) => [name, i + 1]));
  const dynsym = new Uint8Array(24 * (names.length + 1));
  const symView = new DataView(dynsym.buffer);
  names.forEach((name, i) => {
    const at = 24 * (i + 1);
    symView.setUint32(at, dynstr.add(name), true);
    symView.setUint8(at + 4, 0x10); // STB_GLOBAL, STT_NOTYPE, undefined: resolved by the loader
  });
  const dynstrBytes = dynstr.build();

  const sites = [...image.syscalls].sort((a, b) => a.address - b.address);
  const reldyn = new Uint8Array(16 * sites.length);
  const relView = new DataView(reldyn.buffer);
  sites.forEach((site, i) => {
    relView.setBigUint64(16 * i, BigInt(site.address), true);
    relView.setBigUint64(16 * i + 8, (BigInt(symbolIndex.get(site.name)!) << 32n) | R_BPF_64_32, true);
  });

  const sections: OutSection[] = [{ name: '.text', type: SHT_PROGBITS, flags: SHF_ALLOC | SHF_EXECINSTR, bytes: image.text, align: 8, entsize: 0, offset: 0 }];
  // An empty section at a shared address would confuse the loader's DT_SYMTAB lookup (it takes the first section at that address).
  if (image.rodata.length > 0) sections.push({ name: '.rodata', type: SHT_PROGBITS, flags: SHF_ALLOC, bytes: image.rodata, align: 8, entsize: 0, offset: 0 });
  const dynamicSize = 16 * 8;
  sections.push(
    {
      name: '.dynamic',
      type: SHT_DYNAMIC,
      flags: SHF_ALLOC | SHF_WRITE,
      bytes: new Uint8Array(dynamicSize),
      align: 8,
      entsize: 16,
      link: '.dynstr',
      offset: 0,
    },
    { name: '.dynsym', type: SHT_DYNSYM, flags: SHF_ALLOC, bytes: dynsym, align: 8, entsize: 24, link: '.dynstr', info: 1, offset: 0 },
    { name: '.dynstr', type: SHT_STRTAB, flags: SHF_ALLOC, bytes: dynstrBytes, align: 1, entsize: 0, offset: 0 },
    { name: '.rel.dyn', type: SHT_REL, flags: SHF_ALLOC, bytes: reldyn, align: 8, entsize: 16, link: '.dynsym', offset: 0 },
  );

  let cursor = TEXT_OFFSET;
  for (const section of sections) {
    cursor = alignUp(cursor, section.align);
    section.offset = cursor;
    cursor += section.bytes.length;
  }
  if (sections[0]!.offset !== image.textAddress) throw new Error('text placed away from its link address');
  if (image.rodata.length > 0 && sections[1]!.offset !== image.rodataAddress) throw new Error('rodata placed away from its link address');

  const at = (name: string): OutSection => sections.find((s) => s.name === name)!;
  const dynamic = new DataView(at('.dynamic').bytes.buffer);
  const entries: Array<[bigint, bigint]> = [
    [DT.REL, BigInt(at('.rel.dyn').offset)],
    [DT.RELSZ, BigInt(reldyn.length)],
    [DT.RELENT, 16n],
    [DT.SYMTAB, BigInt(at('.dynsym').offset)],
    [DT.SYMENT, 24n],
    [DT.STRTAB, BigInt(at('.dynstr').offset)],
    [DT.STRSZ, BigInt(dynstrBytes.length)],
    [DT.NULL, 0n],
  ];
  entries.forEach(([tag, value], i) => {
    dynamic.setBigUint64(16 * i, tag, true);
    dynamic.setBigUint64(16 * i + 8, value, true);
  });

  const shstrtab = new StringTable();
  const nameOffsets = sections.map((s) => shstrtab.add(s.name));
  const shstrtabName = shstrtab.add('.shstrtab');
  const shstrtabBytes = shstrtab.build();
  const shstrtabOffset = cursor;
  cursor += shstrtabBytes.length;
  const shoff = alignUp(cursor, 8);
  const shnum = sections.length + 2;
  const file = new Uint8Array(shoff + 64 * shnum);
  const view = new DataView(file.buffer);

  file.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0], 0); // ELF64, little-endian, version 1, SysV ABI
  view.setUint16(16, 3, true); // ET_DYN
  view.setUint16(18, 247, true); // EM_BPF
  view.setUint32(20, 1, true);
  view.setBigUint64(24, BigInt(image.entry), true);
  view.setBigUint64(32, 0n, true); // no program headers
  view.setBigUint64(40, BigInt(shoff), true);
  view.setUint32(48, 0, true); // e_flags 0 = SBPF v0
  view.setUint16(52, 64, true);
  view.setUint16(54, 56, true);
  view.setUint16(56, 0, true);
  view.setUint16(58, 64, true);
  view.setUint16(60, shnum, true);
  view.setUint16(62, shnum - 1, true);

  for (const section of sections) file.set(section.bytes, section.offset);
  file.set(shstrtabBytes, shstrtabOffset);

  const indexOf = (name: string): number => sections.findIndex((s) => s.name === name) + 1;
  const header = (
    index: number,
    fields: {
      name: number;
      type: number;
      flags: bigint;
      addr: number;
      offset: number;
      size: number;
      link: number;
      info: number;
      align: number;
      entsize: number;
    },
  ): void => {
    const h = shoff + 64 * index;
    view.setUint32(h, fields.name, true);
    view.setUint32(h + 4, fields.type, true);
    view.setBigUint64(h + 8, fields.flags, true);
    view.setBigUint64(h + 16, BigInt(fields.addr), true);
    view.setBigUint64(h + 24, BigInt(fields.offset), true);
    view.setBigUint64(h + 32, BigInt(fields.size), true);
    view.setUint32(h + 40, fields.link, true);
    view.setUint32(h + 44, fields.info, true);
    view.setBigUint64(h + 48, BigInt(fields.align), true);
    view.setBigUint64(h + 56, BigInt(fields.entsize), true);
  };
  sections.forEach((section, i) =>
    header(i + 1, {
      name: nameOffsets[i]!,
      type: section.type,
      flags: section.flags,
      addr: section.offset,
      offset: section.offset,
      size: section.bytes.length,
      link: section.link ? indexOf(section.link) : 0,
      info: section.info ?? 0,
      align: section.align,
      entsize: section.entsize,
    }),
  );
  header(shnum - 1, {
    name: shstrtabName,
    type: SHT_STRTAB,
    flags: 0n,
    addr: 0,
    offset: shstrtabOffset,
    size: shstrtabBytes.length,
    link: 0,
    info: 0,
    align: 1,
    entsize: 0,
  });
  return file;
}
