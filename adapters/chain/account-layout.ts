/**
 * Fixed-size account structs read straight from their bytes at the offsets the IDL gives (the
 * mirror decodes every account notification: Anchor's coder builds a BN and a PublicKey per field,
 * several times the cost). Public keys become base58 strings through a bounded cache, since the
 * same few keys (admin, relayer, mint, bettors) come back in every notification; 64-bit integers
 * become bigints shared with the recent reads of the same value (docs/operations.md#memory: the
 * mirror holds thousands of bets whose stakes, times, seqs and zero exit prices repeat, and each
 * bigint is an object of its own).
 *
 * @example
 *   const read = structReader(UPDOWN_IDL, 'Bet');
 *   const fields = read(data); // { id: 7n, bettor: '9xQe...', side: 0, ... }
 */
import { PublicKey } from '@solana/web3.js';
import { getBase58Decoder } from '@solana/kit';
import { BASE58_ADDRESS } from '../../kernel/schemas.ts';
import { ResetMap } from '../../kernel/reset-map.ts';

/** A field value: integers of 64 bits as bigint, smaller ones as number, public keys as base58. */
export type FieldValue = bigint | number | string;

interface IdlField {
  name: string;
  type: unknown;
}
interface IdlType {
  name: string;
  type: { kind: string; fields?: IdlField[] };
}

const SIZES: Record<string, number> = { u8: 1, i8: 1, bool: 1, u16: 2, i16: 2, u32: 4, i32: 4, u64: 8, i64: 8, pubkey: 32 };
const base58 = getBase58Decoder();
const names = new ResetMap<string, string>(100_000);

/** The base58 form of a 32-byte key (cached). */
export function keyName(bytes: Uint8Array): string {
  const id = Buffer.from(bytes.buffer, bytes.byteOffset, 32).toString('latin1');
  let name = names.get(id);
  if (name === undefined) names.set(id, (name = base58.decode(bytes.subarray(0, 32))));
  return name;
}

const pkNames = new WeakMap<object, string>();
const keysByName = new ResetMap<string, PublicKey>(50_000);

/**
 * The PublicKey of a base58 address (its canonical form only), or null; kept per address with
 * its name, so a request that names an address again decodes and re-encodes nothing.
 */
export function publicKeyOf(name: string): PublicKey | null {
  let key = keysByName.get(name);
  if (key === undefined) {
    if (!BASE58_ADDRESS.test(name)) return null;
    try {
      key = new PublicKey(name);
    } catch {
      return null;
    }
    if (key.toBase58() !== name) return null;
    keep(name, key);
  }
  return key;
}

/**
 * The PublicKey of a base58 address known to be canonical (a derived or chain-given one), its name
 * kept with it; kept per address like `publicKeyOf`, since one bet's address is asked for by its
 * placement, its landing, its close and its reclaim.
 */
export function keyOfName(name: string): PublicKey {
  return keysByName.get(name) ?? keep(name, new PublicKey(name));
}

/** Keeps `key` as the PublicKey of `name`, and `name` as its text. */
function keep(name: string, key: PublicKey): PublicKey {
  keysByName.set(name, key);
  pkNames.set(key, name);
  return key;
}

/** The base58 form of a web3.js PublicKey, kept per object (PDA helpers hand out the same objects again). */
export function nameOf(key: { toBase58(): string }): string {
  let name = pkNames.get(key);
  if (name === undefined) {
    name = key.toBase58();
    pkNames.set(key, name);
  }
  return name;
}

const recentIntegers = new ResetMap<bigint, bigint>(1_024);

/** `n` as the bigint a recent read of the same value returned (a bounded cache of values, not of accounts). */
export function sharedInteger(n: bigint): bigint {
  const held = recentIntegers.get(n);
  if (held !== undefined) return held;
  recentIntegers.set(n, n);
  return n;
}

/** Where each field of a fixed-size account struct sits, and the struct's length (its 8-byte discriminator included). */
export interface StructLayout {
  fields: ReadonlyArray<{ name: string; type: string; offset: number }>;
  length: number;
}

/** The layout of the struct `name` of `idl`, walked from the IDL once; throws on a struct with variable-size fields. */
export function structLayout(idl: { types?: unknown }, name: string): StructLayout {
  const def = (idl.types as IdlType[] | undefined)?.find((t) => t.name === name);
  if (!def?.type.fields) throw new Error(`IDL has no struct ${name}`);
  let offset = 8;
  const fields = def.type.fields.map((f) => {
    const size = typeof f.type === 'string' ? SIZES[f.type] : undefined;
    if (size === undefined) throw new Error(`IDL field ${name}.${f.name} has a variable size`);
    const field = { name: f.name, type: f.type as string, offset };
    offset += size;
    return field;
  });
  return { fields, length: offset };
}

/** A reader of the struct `name` of `idl` (its 8-byte discriminator first); throws on a struct with variable-size fields. */
export function structReader(idl: { types?: unknown }, name: string): (data: Uint8Array) => Record<string, FieldValue> {
  const { fields, length } = structLayout(idl, name);
  return (data) => {
    if (data.length < length) throw new Error(`${name} account is ${data.length} bytes, expected at least ${length}`);
    const buf = Buffer.from(data.buffer, data.byteOffset, data.length);
    const out: Record<string, FieldValue> = {};
    for (const f of fields) {
      switch (f.type) {
        case 'u64':
          out[f.name] = sharedInteger(buf.readBigUInt64LE(f.offset));
          break;
        case 'i64':
          out[f.name] = sharedInteger(buf.readBigInt64LE(f.offset));
          break;
        case 'pubkey':
          out[f.name] = keyName(buf.subarray(f.offset, f.offset + 32));
          break;
        case 'u8':
        case 'bool':
          out[f.name] = buf.readUInt8(f.offset);
          break;
        case 'i8':
          out[f.name] = buf.readInt8(f.offset);
          break;
        case 'u16':
          out[f.name] = buf.readUInt16LE(f.offset);
          break;
        case 'i16':
          out[f.name] = buf.readInt16LE(f.offset);
          break;
        case 'u32':
          out[f.name] = buf.readUInt32LE(f.offset);
          break;
        default:
          out[f.name] = buf.readInt32LE(f.offset);
      }
    }
    return out;
  };
}
