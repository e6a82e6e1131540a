/**
 * Reads the parts of a relocatable ELF64 little-endian object (clang `-target bpf -c`)
 * that the link step needs: sections, symbols and REL relocations.
 */

/** One section header plus its bytes. */
export interface ObjectSection {
  index: number;
  name: string;
  type: number;
  flags: bigint;
  addralign: number;
  link: number;
  info: number;
  bytes: Uint8Array;
}

/** One symbol-table entry; `section` is st_shndx (0 = undefined). */
export interface ObjectSymbol {
  name: string;
  value: number;
  bind: number;
  type: number;
  section: number;
}

/** One REL entry: patch `offset` in section `target` with symbol `symbol`. */
export interface ObjectRelocation {
  target: number;
  offset: number;
  type: number;
  symbol: number;
}

/** A parsed relocatable object. */
export interface RelocatableObject {
  file: string;
  sections: ObjectSection[];
  symbols: ObjectSymbol[];
  relocations: ObjectRelocation[];
}

/** ELF constants the link step reads (section types and flags, symbol types and binding). */
export const SHT_SYMTAB = 2;
export const SHT_STRTAB = 3;
export const SHT_REL = 9;
export const SHT_NOBITS = 8;
export const SHF_ALLOC = 2n;
export const SHF_WRITE = 1n;
export const STB_LOCAL = 0;
const EM_BPF = 247;
const ET_REL = 1;

function cString(bytes: Uint8Array, at: number): string {
  let end = at;
  while (end < bytes.length && bytes[end] !== 0) end++;
  return new TextDecoder().decode(bytes.subarray(at, end));
}

/** Parses `bytes` as an ELF64 LE relocatable BPF object; throws naming `file` on anything else. */
export function readRelocatable(file: string, bytes: Uint8Array): RelocatableObject {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = bytes[0] === 0x7f && bytes[1] === 0x45 && bytes[2] === 0x4c && bytes[3] === 0x46;
  if (!magic || bytes[4] !== 2 || bytes[5] !== 1) throw new Error(`${file}: not an ELF64 little-endian file`);
  if (view.getUint16(16, true) !== ET_REL || view.getUint16(18, true) !== EM_BPF) throw new Error(`${file}: not a relocatable BPF object`);
  const shoff = Number(view.getBigUint64(40, true));
  const shentsize = view.getUint16(58, true);
  const shnum = view.getUint16(60, true);
  const shstrndx = view.getUint16(62, true);

  const raw = Array.from({ length: shnum }, (_, index) => {
    const at = shoff + index * shentsize;
    const type = view.getUint32(at + 4, true);
    const offset = Number(view.getBigUint64(at + 24, true));
    const size = Number(view.getBigUint64(at + 32, true));
    return {
      index,
      nameOffset: view.getUint32(at, true),
      type,
      flags: view.getBigUint64(at + 8, true),
      addralign: Math.max(1, Number(view.getBigUint64(at + 48, true))),
      link: view.getUint32(at + 40, true),
      info: view.getUint32(at + 44, true),
      bytes: type === SHT_NOBITS ? new Uint8Array(size) : bytes.subarray(offset, offset + size),
    };
  });
  const names = raw[shstrndx]?.bytes;
  if (!names) throw new Error(`${file}: no section name table`);
  const sections: ObjectSection[] = raw.map(({ nameOffset, ...rest }) => ({ ...rest, name: cString(names, nameOffset) }));

  const symtab = sections.find((s) => s.type === SHT_SYMTAB);
  const symbols: ObjectSymbol[] = [];
  if (symtab) {
    const strings = sections[symtab.link]?.bytes ?? new Uint8Array();
    const sv = new DataView(symtab.bytes.buffer, symtab.bytes.byteOffset, symtab.bytes.byteLength);
    for (let at = 0; at + 24 <= symtab.bytes.length; at += 24) {
      const info = sv.getUint8(at + 4);
      symbols.push({
        name: cString(strings, sv.getUint32(at, true)),
        value: Number(sv.getBigUint64(at + 8, true)),
        bind: info >> 4,
        type: info & 0xf,
        section: sv.getUint16(at + 6, true),
      });
    }
  }

  const relocations: ObjectRelocation[] = [];
  for (const section of sections) {
    if (section.type !== SHT_REL) continue;
    const rv = new DataView(section.bytes.buffer, section.bytes.byteOffset, section.bytes.byteLength);
    for (let at = 0; at + 16 <= section.bytes.length; at += 16) {
      const info = rv.getBigUint64(at + 8, true);
      relocations.push({
        target: section.info,
        offset: Number(rv.getBigUint64(at, true)),
        type: Number(info & 0xffffffffn),
        symbol: Number(info >> 32n),
      });
    }
  }
  return { file, sections, symbols, relocations };
}
