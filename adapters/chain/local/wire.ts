/**
 * The few facts the local chain needs from a transaction's wire bytes, read straight from them
 * (no decoding into objects, no base58 work per account): the first signature, the recent
 * blockhash and the writable static account keys, per the message header. Legacy and v0 messages;
 * a v0 message that loads accounts through lookup tables is refused (the project sends none).
 *
 * @example
 *   const { signature, blockhash, writable } = readWire(bytes); // raw bytes; base58 at the edges only
 */

/** What the node reads from a transaction. */
export interface WireFacts {
  /** the first signature (the transaction's id), 64 bytes */
  signature: Uint8Array;
  /** 32 bytes */
  blockhash: Uint8Array;
  /** writable static account keys, 32 bytes each, fee payer first */
  writable: Uint8Array[];
  /** legacy or v0 */
  version: 'legacy' | 0;
  /** every static account key, 32 bytes each, in message order (programs are named by index into them) */
  keys: Uint8Array;
  /** where the compact array of instructions starts */
  instructionsAt: number;
}

/** The transaction bytes are not a transaction. */
export class MalformedTransaction extends Error {
  constructor(reason: string) {
    super(`invalid transaction: failed to deserialize (${reason})`);
    this.name = 'MalformedTransaction';
  }
}

/** Reads a compact-u16 at `at`; returns [value, next offset]. */
function shortVec(bytes: Uint8Array, at: number): [number, number] {
  let value = 0;
  for (let i = 0; i < 3; i++) {
    const b = bytes[at + i];
    if (b === undefined) throw new MalformedTransaction('truncated length');
    value |= (b & 0x7f) << (7 * i);
    if ((b & 0x80) === 0) return [value, at + i + 1];
  }
  throw new MalformedTransaction('length prefix too long');
}

/** Reads the signature, blockhash and writable keys of a legacy or v0 transaction. */
export function readWire(bytes: Uint8Array): WireFacts {
  const [sigCount, afterCount] = shortVec(bytes, 0);
  if (sigCount === 0) throw new MalformedTransaction('no signatures');
  let at = afterCount + 64 * sigCount;
  if (at > bytes.length) throw new MalformedTransaction('truncated signatures');
  const signature = bytes.subarray(afterCount, afterCount + 64);
  let version: WireFacts['version'] = 'legacy';
  const first = bytes[at];
  if (first === undefined) throw new MalformedTransaction('no message');
  if (first & 0x80) {
    if ((first & 0x7f) !== 0) throw new MalformedTransaction(`unsupported message version ${first & 0x7f}`);
    version = 0;
    at++;
  }
  const required = bytes[at];
  const readonlySigned = bytes[at + 1];
  const readonlyUnsigned = bytes[at + 2];
  if (required === undefined || readonlySigned === undefined || readonlyUnsigned === undefined) throw new MalformedTransaction('truncated header');
  const [keyCount, keysAt] = shortVec(bytes, at + 3);
  const blockhashAt = keysAt + 32 * keyCount;
  if (blockhashAt + 32 > bytes.length) throw new MalformedTransaction('truncated account keys');
  if (required > keyCount || readonlySigned > required || readonlyUnsigned > keyCount - required) throw new MalformedTransaction('inconsistent header');
  const writable: Uint8Array[] = [];
  for (let i = 0; i < keyCount; i++) {
    const isWritable = i < required ? i < required - readonlySigned : i < keyCount - readonlyUnsigned;
    if (isWritable) writable.push(bytes.subarray(keysAt + 32 * i, keysAt + 32 * i + 32));
  }
  if (version === 0 && hasLookups(bytes, blockhashAt + 32)) throw new MalformedTransaction('address lookup tables are not supported by the local chain');
  return {
    signature,
    blockhash: bytes.subarray(blockhashAt, blockhashAt + 32),
    writable,
    version,
    keys: bytes.subarray(keysAt, blockhashAt),
    instructionsAt: blockhashAt + 32,
  };
}

/** ComputeBudget111111111111111111111111111111 */
const COMPUTE_BUDGET = Uint8Array.from(Buffer.from('0306466fe5211732ffecadba72c39be7bc8ce5bbc5f7126b2c439b3a40000000', 'hex'));
const SET_COMPUTE_UNIT_PRICE = 3;

/**
 * The compute-unit price (micro-lamports) a transaction offers through a ComputeBudget
 * `SetComputeUnitPrice` instruction, 0 without one (getRecentPrioritizationFees). The runtime
 * itself checks and applies the instruction; this only reads it.
 */
export function computeUnitPrice(bytes: Uint8Array, facts: WireFacts): bigint {
  let [count, p] = shortVec(bytes, facts.instructionsAt);
  for (let i = 0; i < count; i++) {
    const program = bytes[p] ?? 0;
    const [accounts, afterAccounts] = shortVec(bytes, p + 1);
    const [dataLen, dataAt] = shortVec(bytes, afterAccounts + accounts);
    p = dataAt + dataLen;
    if (dataLen === 9 && bytes[dataAt] === SET_COMPUTE_UNIT_PRICE && isComputeBudget(facts.keys, program)) {
      return Buffer.from(bytes.buffer, bytes.byteOffset + dataAt + 1, 8).readBigUInt64LE(0);
    }
  }
  return 0n;
}

function isComputeBudget(keys: Uint8Array, index: number): boolean {
  const at = 32 * index;
  if (at + 32 > keys.length) return false;
  for (let j = 0; j < 32; j++) if (keys[at + j] !== COMPUTE_BUDGET[j]) return false;
  return true;
}

/** Whether the v0 message whose instructions start at `at` has address table lookups. */
function hasLookups(bytes: Uint8Array, at: number): boolean {
  let [count, p] = shortVec(bytes, at);
  for (let i = 0; i < count; i++) {
    p += 1; // program id index
    const [accounts, afterAccounts] = shortVec(bytes, p);
    const [dataLen, afterData] = shortVec(bytes, afterAccounts + accounts);
    p = afterData + dataLen;
  }
  if (p > bytes.length) throw new MalformedTransaction('truncated instructions');
  const [lookups] = shortVec(bytes, p);
  return lookups > 0;
}
