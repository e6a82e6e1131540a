/**
 * The Solana JSON-RPC methods the project uses, answered from a `LocalNode` in the shapes
 * a validator uses (`{context:{slot}, value}` wrappers, `[data, "base64"]` accounts,
 * `-32002` preflight errors carrying `err` and `logs`, `-32016` for a `minContextSlot` not yet
 * reached) so web3.js `Connection` works unmodified (docs/architecture.md#the-local-chain).
 * `getSignaturesForAddress` lists the transactions that wrote an account, deleted ones too;
 * `getRecentPrioritizationFees` the compute-unit prices recent slots paid (`prioritization-fees.ts`).
 */
import * as v from 'valibot';
import { getBase58Decoder, getBase58Encoder, isAddress } from '@solana/kit';
import type { FaultHooks } from './faults/hooks.ts';
import type { AccountImage } from './journal.ts';
import { parseParams, type RpcMethod } from './json-rpc.ts';
import type { LocalNode } from './node.ts';
import { RPC_CODES, RpcFailure, assertMinContextSlot } from './rpc-failure.ts';
import { MAX_SIGNATURES_PER_ADDRESS } from './signature-index.ts';
import { formatFixed } from '../../../kernel/fixed-point.ts';

const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const TOKEN_ACCOUNT_SIZE = 165;
const MINT_DECIMALS_OFFSET = 44;
/** reported as the node's version (the LiteSVM line it embeds speaks this RPC dialect) */
const CORE_VERSION = '2.2.0';
const MAX_AIRDROP_LAMPORTS = 1_000_000n * 1_000_000_000n;
/** accounts one getRecentPrioritizationFees may name (a validator's transaction account-lock limit) */
const MAX_FEE_ACCOUNTS = 128;

const b58enc = getBase58Encoder();
const b58dec = getBase58Decoder();

const Pubkey = v.pipe(
  v.string(),
  v.check((s) => isAddress(s), 'Invalid param: not a base58 public key'),
);
const Encoding = v.optional(v.picklist(['base58', 'base64', 'base64+zstd', 'jsonParsed']));
const DataSlice = v.optional(v.object({ offset: v.pipe(v.number(), v.integer(), v.minValue(0)), length: v.pipe(v.number(), v.integer(), v.minValue(0)) }));
const MinContextSlot = v.optional(v.pipe(v.number(), v.integer(), v.minValue(0)));
const AccountConfig = v.optional(
  v.looseObject({ encoding: Encoding, dataSlice: DataSlice, commitment: v.optional(v.string()), minContextSlot: MinContextSlot }),
);
const Memcmp = v.object({
  memcmp: v.object({ offset: v.pipe(v.number(), v.integer(), v.minValue(0)), bytes: v.string(), encoding: v.optional(v.picklist(['base58', 'base64'])) }),
});
const DataSize = v.object({ dataSize: v.pipe(v.number(), v.integer(), v.minValue(0)) });
const ProgramAccountsConfig = v.optional(
  v.looseObject({
    encoding: Encoding,
    dataSlice: DataSlice,
    commitment: v.optional(v.string()),
    withContext: v.optional(v.boolean()),
    filters: v.optional(v.pipe(v.array(v.union([Memcmp, DataSize])), v.maxLength(4, 'Invalid param: too many filters'))),
  }),
);
const TxConfig = v.optional(
  v.looseObject({
    encoding: v.optional(v.picklist(['base58', 'base64'])),
    skipPreflight: v.optional(v.boolean()),
    sigVerify: v.optional(v.boolean()),
    replaceRecentBlockhash: v.optional(v.boolean()),
    accounts: v.optional(v.looseObject({ addresses: v.array(v.string()) })),
  }),
);
const Commitment = v.optional(v.looseObject({ commitment: v.optional(v.string()) }));
const U64 = v.pipe(v.number(), v.integer(), v.minValue(0));
const Signature = v.pipe(
  v.string(),
  v.check((s) => isSignature(s), 'Invalid param: not a base58 signature'),
);
const SignaturesConfig = v.optional(
  v.looseObject({
    limit: v.optional(
      v.pipe(
        v.number(),
        v.integer(),
        v.minValue(1, `Invalid limit; max ${MAX_SIGNATURES_PER_ADDRESS}`),
        v.maxValue(MAX_SIGNATURES_PER_ADDRESS, `Invalid limit; max ${MAX_SIGNATURES_PER_ADDRESS}`),
      ),
    ),
    before: v.optional(Signature),
    until: v.optional(Signature),
    commitment: v.optional(v.picklist(['confirmed', 'finalized', 'processed'])),
    minContextSlot: MinContextSlot,
  }),
);

function isSignature(text: string): boolean {
  if (text.length < 64 || text.length > 88) return false;
  try {
    return b58enc.encode(text).length === 64;
  } catch {
    return false;
  }
}

export type Enc = v.InferOutput<typeof Encoding>;
export type Slice = v.InferOutput<typeof DataSlice>;
export { AccountConfig, ProgramAccountsConfig, Pubkey };

/** An account as JSON-RPC answers it (`getAccountInfo` value, subscription notifications). */
export function accountJson(a: AccountImage, encoding: Enc, slice: Slice): object {
  const data = slice ? a.data.subarray(slice.offset, slice.offset + slice.length) : a.data;
  const encoded = encoding === 'base58' ? [b58dec.decode(data), 'base58'] : [Buffer.from(data).toString('base64'), 'base64'];
  return { data: encoded, executable: a.executable, lamports: Number(a.lamports ?? 0n), owner: a.owner, rentEpoch: 0, space: a.data.length };
}

function decodeBytes(text: string, encoding: 'base58' | 'base64' | undefined): Uint8Array {
  try {
    return encoding === 'base64' ? Buffer.from(text, 'base64') : new Uint8Array(b58enc.encode(text));
  } catch {
    throw new RpcFailure(RPC_CODES.invalidParams, `Invalid params: invalid ${encoding ?? 'base58'} encoding`);
  }
}

export function matches(a: AccountImage, filters: NonNullable<v.InferOutput<typeof ProgramAccountsConfig>>['filters']): boolean {
  for (const f of filters ?? []) {
    if ('dataSize' in f) {
      if (a.data.length !== f.dataSize) return false;
    } else {
      const want = decodeBytes(f.memcmp.bytes, f.memcmp.encoding);
      const at = f.memcmp.offset;
      if (at + want.length > a.data.length) return false;
      for (let i = 0; i < want.length; i++) if (a.data[at + i] !== want[i]) return false;
    }
  }
  return true;
}

const decimalString = (amount: bigint, decimals: number): string => formatFixed(amount, decimals, { trim: true });

/** The method table served by the local chain; `faults` (docs/operations.md#a-fault-profile) has its say in sends and statuses. */
export function rpcMethods(node: LocalNode, genesisHash: string, faults: FaultHooks | null = null): Record<string, RpcMethod> {
  const context = () => ({ slot: node.slot, apiVersion: CORE_VERSION });
  const withContext = (value: unknown) => ({ context: context(), value });

  return {
    getHealth: () => 'ok',
    getVersion: () => ({ 'solana-core': CORE_VERSION, 'feature-set': 0 }),
    getGenesisHash: () => genesisHash,
    getSlot: () => node.slot,
    getBlockHeight: () => node.slot,
    getEpochInfo: () => ({
      absoluteSlot: node.slot,
      blockHeight: node.slot,
      epoch: Math.floor(node.slot / 432_000),
      slotIndex: node.slot % 432_000,
      slotsInEpoch: 432_000,
      transactionCount: null,
    }),
    getLatestBlockhash: (p) => {
      parseParams(v.tuple([Commitment]), p);
      return withContext(node.latestBlockhash());
    },
    isBlockhashValid: (p) => {
      const [hash] = parseParams(v.tuple([v.string(), Commitment]), p);
      return withContext(node.isBlockhashValid(hash));
    },
    getMinimumBalanceForRentExemption: (p) => {
      const [size] = parseParams(v.tuple([v.pipe(U64, v.maxValue(10 * 1024 * 1024)), Commitment]), p);
      return Number(node.rentExempt(size));
    },
    getBalance: (p) => {
      const [key] = parseParams(v.tuple([Pubkey, Commitment]), p);
      return withContext(Number(node.account(key)?.lamports ?? 0n));
    },
    getAccountInfo: (p) => {
      const [key, cfg] = parseParams(v.tuple([Pubkey, AccountConfig]), p);
      assertMinContextSlot(node.slot, cfg?.minContextSlot);
      const acc = node.account(key);
      return withContext(acc ? accountJson(acc, cfg?.encoding, cfg?.dataSlice) : null);
    },
    getMultipleAccounts: (p) => {
      const [keys, cfg] = parseParams(v.tuple([v.pipe(v.array(Pubkey), v.maxLength(100, 'Invalid param: too many accounts')), AccountConfig]), p);
      assertMinContextSlot(node.slot, cfg?.minContextSlot);
      return withContext(
        keys.map((k) => {
          const acc = node.account(k);
          return acc ? accountJson(acc, cfg?.encoding, cfg?.dataSlice) : null;
        }),
      );
    },
    getProgramAccounts: (p) => {
      const [owner, cfg] = parseParams(v.tuple([Pubkey, ProgramAccountsConfig]), p);
      const found = node
        .programAccounts(owner)
        .filter((a) => matches(a, cfg?.filters))
        .map((a) => ({ pubkey: a.address, account: accountJson(a, cfg?.encoding, cfg?.dataSlice) }));
      return cfg?.withContext ? withContext(found) : found;
    },
    getTokenAccountBalance: (p) => {
      const [key] = parseParams(v.tuple([Pubkey, Commitment]), p);
      const acc = node.account(key);
      if (!acc || acc.owner !== TOKEN_PROGRAM || acc.data.length !== TOKEN_ACCOUNT_SIZE) {
        throw new RpcFailure(RPC_CODES.invalidParams, 'Invalid param: not a Token account');
      }
      const mint = node.account(b58dec.decode(acc.data.subarray(0, 32)));
      const decimals = mint?.data[MINT_DECIMALS_OFFSET] ?? 0;
      const amount = Buffer.from(acc.data).readBigUInt64LE(64);
      const uiAmountString = decimalString(amount, decimals);
      return withContext({ amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString });
    },
    getSignatureStatuses: (p) => {
      const [sigs] = parseParams(
        v.tuple([v.pipe(v.array(v.string()), v.maxLength(256, 'Invalid param: too many signatures')), v.optional(v.looseObject({}))]),
        p,
      );
      return withContext(
        sigs.map((sig) => {
          const st = node.status(sig);
          if (!st || (faults && !faults.statusShown(sig))) return null;
          return { slot: st.slot, confirmations: null, err: st.err, status: st.err === null ? { Ok: null } : { Err: st.err }, confirmationStatus: 'finalized' };
        }),
      );
    },
    getSignaturesForAddress: (p) => {
      const [key, cfg] = parseParams(v.tuple([Pubkey, SignaturesConfig]), p);
      if (cfg?.commitment === 'processed') throw new RpcFailure(RPC_CODES.invalidParams, 'Method does not support commitment below `confirmed`');
      assertMinContextSlot(node.slot, cfg?.minContextSlot);
      const page = node.signaturesFor(key, { limit: cfg?.limit ?? MAX_SIGNATURES_PER_ADDRESS, before: cfg?.before, until: cfg?.until });
      // every committed transaction is on disk before anyone hears of it: final at once
      return page.map((e) => ({ signature: e.signature, slot: e.slot, err: e.err, memo: null, blockTime: e.blockTime, confirmationStatus: 'finalized' }));
    },
    getRecentPrioritizationFees: (p) => {
      const [accounts] = parseParams(
        v.tuple([v.optional(v.pipe(v.array(Pubkey), v.maxLength(MAX_FEE_ACCOUNTS, `Too many inputs provided; max ${MAX_FEE_ACCOUNTS}`)))]),
        p,
      );
      return node.fees.recent(node.slot, accounts);
    },
    requestAirdrop: (p) => {
      const [key, lamports] = parseParams(v.tuple([Pubkey, v.pipe(U64, v.minValue(1)), Commitment]), p);
      if (BigInt(lamports) > MAX_AIRDROP_LAMPORTS) throw new RpcFailure(RPC_CODES.invalidParams, 'Invalid params: airdrop too large');
      return node.airdrop(key, BigInt(lamports));
    },
    sendTransaction: (p) => {
      const [encoded, cfg] = parseParams(v.tuple([v.string(), TxConfig]), p);
      const wire = decodeBytes(encoded, cfg?.encoding ?? 'base58');
      const opts = { skipPreflight: cfg?.skipPreflight ?? false };
      return faults ? faults.send(wire, opts) : node.submit(wire, opts);
    },
    simulateTransaction: (p) => {
      const [encoded, cfg] = parseParams(v.tuple([v.string(), TxConfig]), p);
      const sim = node.simulate(decodeBytes(encoded, cfg?.encoding ?? 'base58'), {
        sigVerify: cfg?.sigVerify ?? false,
        replaceRecentBlockhash: cfg?.replaceRecentBlockhash ?? false,
      });
      const accounts = cfg?.accounts ? cfg.accounts.addresses.map(() => null) : null;
      return withContext({
        err: sim.err,
        logs: sim.logs,
        accounts,
        unitsConsumed: sim.unitsConsumed,
        returnData: null,
        replacementBlockhash: sim.replacementBlockhash
          ? { blockhash: sim.replacementBlockhash, lastValidBlockHeight: node.latestBlockhash().lastValidBlockHeight }
          : null,
      });
    },
  };
}
