/**
 * Lays the objects' code and read-only data out in one image and resolves their relocations
 * the way the SBPF v0 loader expects (read-only region at 0x1_0000_0000 + address;
 * calls PC-relative; syscalls left as `call -1` for the loader to resolve by name).
 */
import { SHF_ALLOC, SHF_WRITE, STB_LOCAL, type RelocatableObject } from './elf-read.ts';

/** Where the SBPF v0 loader maps .text/.rodata: file address + this. */
export const MM_PROGRAM_START = 0x1_0000_0000n;

const R_BPF_64_64 = 1;
const R_BPF_64_ABS64 = 2;
const R_BPF_64_32 = 10;

/** A call to a syscall, kept for the loader: instruction address and symbol name. */
export interface SyscallSite {
  address: number;
  name: string;
}

/** Code and read-only data with every relocation applied, except syscall calls. */
export interface LinkedImage {
  textAddress: number;
  text: Uint8Array;
  rodataAddress: number;
  rodata: Uint8Array;
  entry: number;
  syscalls: SyscallSite[];
}

type Kind = 'text' | 'rodata';
interface Placed {
  kind: Kind;
  address: number;
  offsetInOutput: number;
}

const alignUp = (value: number, align: number): number => Math.ceil(value / align) * align;

function classify(file: string, name: string, flags: bigint): Kind | null {
  if ((flags & SHF_ALLOC) === 0n) return null;
  if ((flags & SHF_WRITE) !== 0n) throw new Error(`${file}: writable section ${name}: SBPF v0 rejects mutable globals`);
  if (name === '.text' || name.startsWith('.text.')) return 'text';
  if (name.startsWith('.rodata')) return 'rodata';
  throw new Error(`${file}: unsupported allocated section ${name}`);
}

/** Places .text sections from `textAddress`, then .rodata, and patches every relocation. */
export function linkImage(objects: RelocatableObject[], textAddress: number): LinkedImage {
  const placed = new Map<string, Placed>();
  const sizes: Record<Kind, number> = { text: 0, rodata: 0 };
  const order: Array<{ key: string; kind: Kind; bytes: Uint8Array; align: number }> = [];
  for (const kind of ['text', 'rodata'] as const) {
    objects.forEach((object, o) => {
      for (const section of object.sections) {
        if (section.bytes.length === 0 || classify(object.file, section.name, section.flags) !== kind) continue;
        const align = kind === 'text' ? 8 : section.addralign;
        sizes[kind] = alignUp(sizes[kind], align);
        order.push({ key: `${o}:${section.index}`, kind, bytes: section.bytes, align });
        placed.set(`${o}:${section.index}`, { kind, address: 0, offsetInOutput: sizes[kind] });
        sizes[kind] += section.bytes.length;
      }
    });
  }
  if (sizes.text === 0) throw new Error('no code to link');
  const rodataAddress = alignUp(textAddress + sizes.text, 8);
  const base: Record<Kind, number> = { text: textAddress, rodata: rodataAddress };
  const output: Record<Kind, Uint8Array> = { text: new Uint8Array(sizes.text), rodata: new Uint8Array(sizes.rodata) };
  for (const item of order) {
    const place = placed.get(item.key)!;
    place.address = base[item.kind] + place.offsetInOutput;
    output[item.kind].set(item.bytes, place.offsetInOutput);
  }

  const globals = new Map<string, number>();
  objects.forEach((object, o) => {
    for (const symbol of object.symbols) {
      if (symbol.bind === STB_LOCAL || symbol.section === 0 || symbol.name === '') continue;
      const place = placed.get(`${o}:${symbol.section}`);
      if (!place) continue;
      if (globals.has(symbol.name)) throw new Error(`${object.file}: ${symbol.name} defined twice`);
      globals.set(symbol.name, place.address + symbol.value);
    }
  });

  const syscalls: SyscallSite[] = [];
  objects.forEach((object, o) => {
    for (const reloc of object.relocations) {
      const place = placed.get(`${o}:${reloc.target}`);
      if (!place) continue;
      const symbol = object.symbols[reloc.symbol];
      if (!symbol) throw new Error(`${object.file}: relocation against missing symbol ${reloc.symbol}`);
      const out = output[place.kind];
      const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
      const at = place.offsetInOutput + reloc.offset;
      const site = place.address + reloc.offset;
      let target: number | undefined;
      if (symbol.section !== 0) {
        const home = placed.get(`${o}:${symbol.section}`);
        if (!home) throw new Error(`${object.file}: ${symbol.name || 'section symbol'} points into a section that is not linked`);
        target = home.address + symbol.value;
      } else {
        target = globals.get(symbol.name);
      }

      switch (reloc.type) {
        case R_BPF_64_64: {
          if (target === undefined) throw new Error(`${object.file}: undefined data symbol ${symbol.name}`);
          const addend = BigInt(view.getUint32(at + 4, true));
          const value = MM_PROGRAM_START + BigInt(target) + addend;
          view.setUint32(at + 4, Number(value & 0xffffffffn), true);
          view.setUint32(at + 12, Number(value >> 32n), true);
          break;
        }
        case R_BPF_64_ABS64: {
          if (target === undefined) throw new Error(`${object.file}: undefined data symbol ${symbol.name}`);
          const addend = view.getBigUint64(at, true);
          view.setBigUint64(at, MM_PROGRAM_START + BigInt(target) + addend, true);
          break;
        }
        case R_BPF_64_32: {
          if (place.kind !== 'text') throw new Error(`${object.file}: call relocation outside code`);
          if (target === undefined) {
            if (view.getInt32(at + 4, true) !== -1) throw new Error(`${object.file}: syscall ${symbol.name} without imm -1`);
            syscalls.push({ address: site, name: symbol.name });
            break;
          }
          if (symbol.section !== 0 && symbol.type === 3) throw new Error(`${object.file}: call through a section symbol`);
          const delta = target - site - 8;
          if (delta % 8 !== 0) throw new Error(`${object.file}: misaligned call target ${symbol.name}`);
          view.setInt32(at + 4, delta / 8, true);
          break;
        }
        default:
          throw new Error(`${object.file}: unsupported relocation type ${reloc.type} against ${symbol.name}`);
      }
    }
  });

  const entry = globals.get('entrypoint');
  if (entry === undefined) throw new Error('no global `entrypoint` function');
  return { textAddress, text: output.text, rodataAddress, rodata: output.rodata, entry, syscalls };
}
