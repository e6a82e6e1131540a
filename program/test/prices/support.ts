/**
 * Signed prices in the program tests (docs/decisions.md#signed-prices): a price signer's key,
 * ticks signed with it, Ed25519 program instructions built byte by byte (so attacks can bend
 * every offset), and a chain with signed prices on and the signer trusted.
 */
import { Keypair, PublicKey, TransactionInstruction } from '@solana/web3.js';
import { encodeTickMessage, privateKeyOfSeed, signMessage } from '../../../adapters/feed/tick-message.ts';
import { BetChain, type Bettor } from '../svm.ts';

export const ED25519_PROGRAM = new PublicKey('Ed25519SigVerify111111111111111111111111111');
export const OWN = 0xffff;

/** One signed tick: the signer's key, the 48-byte message and its signature. */
export interface SignedTick {
  signer: PublicKey;
  seq: bigint;
  tsMs: number;
  price: bigint;
  message: Buffer;
  signature: Buffer;
}

/** A price signer with its own key. */
export class TickSigner {
  readonly keypair = Keypair.generate();
  private readonly key = privateKeyOfSeed(this.keypair.secretKey.subarray(0, 32));

  get publicKey(): PublicKey {
    return this.keypair.publicKey;
  }

  /** Tick `seq` at `tsMs` of `price` (x 1e8); `domain`/`feedId` replace the tag or the feed id (attacks). */
  tick(seq: bigint, tsMs: number, price: bigint, bend: { domain?: Uint8Array; feedId?: Uint8Array } = {}): SignedTick {
    const message = encodeTickMessage({ seq, ts: tsMs, priceE8: price }, bend.domain, bend.feedId);
    return { signer: this.publicKey, seq, tsMs, price, message, signature: signMessage(this.key, message) };
  }
}

/** One signature record of an Ed25519 instruction, with the indexes it points at (0xffff: its own data). */
export interface Ed25519Record {
  tick: SignedTick;
  signatureIndex?: number;
  keyIndex?: number;
  messageIndex?: number;
}

/**
 * The Ed25519 program instruction verifying `records`: u8 count, u8 padding, 14-byte records, then
 * per record key (32), signature (64) and message (48) in its own data.
 */
export function ed25519Ix(records: Ed25519Record[]): TransactionInstruction {
  const header = 2 + 14 * records.length;
  const body = 32 + 64 + 48;
  const data = Buffer.alloc(header + body * records.length);
  data[0] = records.length;
  records.forEach((r, i) => {
    const at = header + body * i;
    data.set(r.tick.signer.toBytes(), at);
    data.set(r.tick.signature, at + 32);
    data.set(r.tick.message, at + 96);
    const rec = 2 + 14 * i;
    data.writeUInt16LE(at + 32, rec);
    data.writeUInt16LE(r.signatureIndex ?? OWN, rec + 2);
    data.writeUInt16LE(at, rec + 4);
    data.writeUInt16LE(r.keyIndex ?? OWN, rec + 6);
    data.writeUInt16LE(at + 96, rec + 8);
    data.writeUInt16LE(48, rec + 10);
    data.writeUInt16LE(r.messageIndex ?? OWN, rec + 12);
  });
  return new TransactionInstruction({ programId: ED25519_PROGRAM, keys: [], data });
}

/** Clock ms of the chain now. */
export const nowMs = (chain: BetChain): number => Number(chain.now()) * 1000;

/** A chain with the mint, vault and contract set up, signed prices on and `signer` trusted for a year. */
export async function signedChain(signer: TickSigner, maxEntryAgeMs = 30_000n, programBytes?: Uint8Array): Promise<BetChain> {
  const chain = new BetChain(programBytes ? { programBytes } : {});
  await chain.setUp();
  chain.mustSend([await chain.setPriceRulesIx(true, maxEntryAgeMs)], [chain.admin]);
  chain.mustSend([await chain.addPriceSignerIx(signer.publicKey, chain.now() + 365n * 24n * 3600n)], [chain.admin]);
  return chain;
}

/** Places `bettor`'s bet at `tick`'s price with the tick verified by an Ed25519 instruction at index 0. */
export async function placeSigned(chain: BetChain, bettor: Bettor, tick: SignedTick, side = 0, amount = 1_000_000_000n): Promise<PublicKey> {
  const seq = chain.nextSeq(bettor);
  const place = await chain.placeBetIx(bettor, { side, amount, entryPrice: tick.price }, { tick: { instruction: 0, signature: 0 } });
  chain.mustSend([ed25519Ix([{ tick }]), place], [chain.relayer, bettor.key]);
  return chain.betAddress(bettor, seq);
}

/** A new bettor's bet placed at `entry` (verified), with the clock moved past its expiry; the expiry in ms. */
export async function expiredSignedBet(chain: BetChain, entry: SignedTick): Promise<{ bettor: Bettor; bet: PublicKey; expire: number }> {
  const bettor = chain.newBettor();
  const bet = await placeSigned(chain, bettor, entry);
  const expire = Number(chain.readBet(bet).expire_time) * 1000;
  chain.setTime(chain.now() + 16n);
  return { bettor, bet, expire };
}
