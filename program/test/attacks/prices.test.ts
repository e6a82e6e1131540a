/**
 * Signed prices under attack (docs/decisions.md#signed-prices): with signed prices on, neither the
 * relayer nor anyone else can open or settle a bet at a price the trusted price signer did not
 * sign as the project's rule says. Each attack is refused with every account it could touch left
 * byte for byte as it was; and each is run again on a test build of the program with exactly the
 * check that stops it left out (program/build/build.ts `buildProgramWithout`), where it succeeds:
 * that check, and no other, is what stops it.
 */
import type { PublicKey, TransactionInstruction } from '@solana/web3.js';
import { expect } from 'vitest';
import { describeAttacks, holdingsOf, lookAlikeSysvar, type Attack as AttackOn } from './support.ts';
import type { Bettor, BetChain, Sent } from '../svm.ts';
import { ed25519Ix, expiredSignedBet, nowMs, placeSigned, signedChain, TickSigner, type SignedTick } from '../prices/support.ts';
import { PRICE_RULES } from '../harness/instructions.ts';
import { encodeTickMessage } from '../../../adapters/feed/tick-message.ts';

/** The SKIP_* bits of program/src/prices.h. */
const SKIP = {
  sysvarKey: 1 << 0,
  earlier: 1 << 1,
  ownData: 1 << 3,
  domain: 1 << 4,
  trusted: 1 << 5,
  expiry: 1 << 6,
  priceMatch: 1 << 7,
  entryAge: 1 << 8,
  entryReplay: 1 << 9,
  straddle: 1 << 10,
  consecutive: 1 << 11,
  sameSigner: 1 << 12,
  stale: 1 << 13,
  tickRequired: 1 << 14,
} as const;

const PRICE = 15_000_000_000n;
const FORGED = 99_000_000_000n;

/** An open bet on a chain with signed prices on, past its expiry, and the signer's ticks around it. */
interface Scene {
  chain: BetChain;
  signer: TickSigner;
  other: TickSigner;
  bettor: Bettor;
  bet: PublicKey;
  /** expiry, ms */
  expire: number;
  /** ticks of `signer` with seq 39..43: 39 and 40 at or before expiry, 41.. after */
  t: Record<39 | 40 | 41 | 42 | 43, SignedTick>;
}

async function scene(programBytes?: Uint8Array): Promise<Scene> {
  const signer = new TickSigner();
  const other = new TickSigner();
  const chain = await signedChain(signer, 30_000n, programBytes);
  const { bettor, bet, expire } = await expiredSignedBet(chain, signer.tick(10n, nowMs(chain) - 400, PRICE));
  const t = {
    39: signer.tick(39n, expire - 5_000, PRICE + 7n),
    40: signer.tick(40n, expire - 300, PRICE + 1n),
    41: signer.tick(41n, expire + 200, PRICE - 1n),
    42: signer.tick(42n, expire + 900, PRICE - 2n),
    43: signer.tick(43n, expire + 1_500, PRICE - 3n),
  };
  return { chain, signer, other, bettor, bet, expire, t };
}

/** close_bet of the scene's bet at `price`, its ticks in records `first`/`next` of instruction 0. */
const closeIx = (s: Scene, price: bigint, refs = { instruction: 0, first: 0, next: 1 }, accounts = {}): Promise<TransactionInstruction> =>
  s.chain.closeBetIx(s.bet, s.bettor, price, accounts, refs);

/** Closes with the pair (a, b) verified by one Ed25519 instruction before the close, claiming `price` (default: a's). */
async function closeWithPair(s: Scene, a: SignedTick, b: SignedTick, price = a.price): Promise<Sent> {
  return s.chain.send([ed25519Ix([{ tick: a }, { tick: b }]), await closeIx(s, price)], [s.chain.relayer]);
}

/** Every account an attack could touch: bet, bettor state and token, vault, config, price rules. */
const holdings = (s: Scene): string => holdingsOf(s.chain, [s.bet, s.bettor.state, s.bettor.token, s.chain.vault, s.chain.config, PRICE_RULES]);

/** An attack on a price scene (its `prepare`: the admin's doing before it, trusting or removing signers). */
type Attack = AttackOn<Scene>;

/** A fake instructions sysvar saying instruction 0 was an Ed25519 instruction verifying `ticks`, and 1 is running. */
const lookAlikeTicks = (chain: BetChain, ticks: SignedTick[]): PublicKey => lookAlikeSysvar(chain, ed25519Ix(ticks.map((tick) => ({ tick }))).data);

/** The tick `t` with its price replaced, unsigned: what an attacker would like the program to read. */
const forgedCopy = (t: SignedTick, price: bigint): SignedTick => ({ ...t, price, message: encodeTickMessage({ seq: t.seq, ts: t.tsMs, priceE8: price }) });

const ATTACKS: Attack[] = [
  {
    name: 'a relayer-chosen exit price with no tick at all',
    error: 'PriceTickMissing',
    without: SKIP.tickRequired,
    run: async (s) => s.chain.send([await closeIx(s, FORGED)], [s.chain.relayer]),
  },
  {
    name: 'the Ed25519 instruction placed after the close',
    error: 'PriceTickMissing',
    without: SKIP.earlier,
    run: async (s) =>
      s.chain.send(
        [await closeIx(s, s.t[40].price, { instruction: 1, first: 0, next: 1 }), ed25519Ix([{ tick: s.t[40] }, { tick: s.t[41] }])],
        [s.chain.relayer],
      ),
  },
  {
    name: 'ticks signed by a key that is not trusted',
    error: 'UntrustedPriceSigner',
    without: SKIP.trusted,
    run: (s) => closeWithPair(s, s.other.tick(40n, s.expire - 300, FORGED), s.other.tick(41n, s.expire + 200, PRICE)),
  },
  {
    name: 'ticks of a signer the admin removed',
    error: 'UntrustedPriceSigner',
    without: SKIP.trusted,
    prepare: async (s) => {
      // another signer stays trusted, so the build without the check has one to fall back on
      s.chain.mustSend([await s.chain.addPriceSignerIx(s.other.publicKey, s.chain.now() + 3600n)], [s.chain.admin]);
      s.chain.mustSend([await s.chain.removePriceSignerIx(s.signer.publicKey)], [s.chain.admin]);
    },
    run: (s) => closeWithPair(s, s.t[40], s.t[41]),
  },
  {
    name: 'ticks of a signer whose trust expired',
    error: 'UntrustedPriceSigner',
    without: SKIP.expiry,
    prepare: async (s) => {
      s.chain.mustSend([await s.chain.addPriceSignerIx(s.signer.publicKey, s.chain.now() - 1n)], [s.chain.admin]);
    },
    run: (s) => closeWithPair(s, s.t[40], s.t[41]),
  },
  {
    name: 'a valid pair that is not the last tick at or before expiry: n-1, n',
    error: 'NotLastTickBeforeExpiry',
    without: SKIP.straddle,
    run: (s) => closeWithPair(s, s.t[39], s.t[40]),
  },
  {
    name: 'a valid pair after expiry: n+1, n+2',
    error: 'NotLastTickBeforeExpiry',
    without: SKIP.straddle,
    run: (s) => closeWithPair(s, s.t[41], s.t[42]),
  },
  {
    name: 'a later valid pair: n+2, n+3',
    error: 'NotLastTickBeforeExpiry',
    without: SKIP.straddle,
    run: (s) => closeWithPair(s, s.t[42], s.t[43]),
  },
  {
    name: 'a pair that is not consecutive (n, n+2)',
    error: 'PriceTicksNotConsecutive',
    without: SKIP.consecutive,
    run: (s) => closeWithPair(s, s.t[40], s.t[42]),
  },
  {
    name: 'a pair from two trusted signers',
    error: 'PriceTicksNotConsecutive',
    without: SKIP.sameSigner,
    prepare: async (s) => {
      s.chain.mustSend([await s.chain.addPriceSignerIx(s.other.publicKey, s.chain.now() + 3600n)], [s.chain.admin]);
    },
    run: (s) => closeWithPair(s, s.other.tick(40n, s.expire - 300, FORGED), s.t[41]),
  },
  {
    name: 'ticks for another feed id',
    error: 'InvalidPriceTick',
    without: SKIP.domain,
    run: (s) => {
      const feedId = Uint8Array.from([...Buffer.from('btcusdt', 'ascii'), 0]);
      return closeWithPair(s, s.signer.tick(40n, s.expire - 300, FORGED, { feedId }), s.signer.tick(41n, s.expire + 200, PRICE, { feedId }));
    },
  },
  {
    name: 'ticks with another domain tag',
    error: 'InvalidPriceTick',
    without: SKIP.domain,
    run: (s) => {
      const domain = Uint8Array.from([...Buffer.from('OTHER_THING_V1', 'ascii'), 0, 0]);
      return closeWithPair(s, s.signer.tick(40n, s.expire - 300, FORGED, { domain }), s.signer.tick(41n, s.expire + 200, PRICE, { domain }));
    },
  },
  {
    name: 'an Ed25519 instruction whose offsets point into another instruction (it verified a different message)',
    error: 'InvalidPriceTick',
    without: SKIP.ownData,
    run: async (s) => {
      // instruction 0 verifies the real pair; instruction 1 carries a forged tick n in its own data but
      // its record points at instruction 0's message, so the runtime verifies the real one
      const real = ed25519Ix([{ tick: s.t[40] }, { tick: s.t[41] }]);
      const bent = ed25519Ix([{ tick: forgedCopy(s.t[40], FORGED), messageIndex: 0 }, { tick: s.t[41] }]);
      return s.chain.send([real, bent, await closeIx(s, FORGED, { instruction: 1, first: 0, next: 1 })], [s.chain.relayer]);
    },
  },
  {
    name: 'two signatures in one instruction, and the relayer claims the price of the one that was not verified there',
    error: 'PriceTickMismatch',
    without: SKIP.priceMatch,
    run: async (s) => {
      // three records: the forged tick n stored first is verified by no record (record 0 names the
      // key, signature and message stored for record 1, the real tick n); a program that read the
      // first message stored instead of what record 0 names would take the forged price
      const ix = ed25519Ix([{ tick: forgedCopy(s.t[40], FORGED) }, { tick: s.t[40] }, { tick: s.t[41] }]);
      const header = 2 + 14 * 3;
      const body = 32 + 64 + 48;
      ix.data.writeUInt16LE(header + body + 32, 2);
      ix.data.writeUInt16LE(header + body, 6);
      ix.data.writeUInt16LE(header + body + 96, 10);
      return s.chain.send([ix, await s.chain.closeBetIx(s.bet, s.bettor, FORGED, {}, { instruction: 0, first: 0, next: 2 })], [s.chain.relayer]);
    },
  },
  {
    name: 'a look-alike account passed as the instructions sysvar (Wormhole, 2022)',
    error: 'InvalidInstructionsSysvar',
    without: SKIP.sysvarKey,
    run: async (s) => {
      const fake = lookAlikeTicks(s.chain, [forgedCopy(s.t[40], FORGED), s.t[41]]);
      return s.chain.send([await closeIx(s, FORGED, { instruction: 0, first: 0, next: 1 }, { instructions: fake })], [s.chain.relayer]);
    },
  },
  {
    name: 'a relayer-chosen exit price beside a valid pair',
    error: 'PriceTickMismatch',
    without: SKIP.priceMatch,
    run: (s) => closeWithPair(s, s.t[40], s.t[41], FORGED),
  },
  {
    name: 'a last tick more than 30 s before expiry',
    error: 'PriceTickStale',
    without: SKIP.stale,
    run: (s) => closeWithPair(s, s.signer.tick(40n, s.expire - 31_000, FORGED), s.signer.tick(41n, s.expire + 200, PRICE)),
  },
];

/** Entry attacks: a second bettor's placement on the scene's chain. */
const ENTRY_ATTACKS: Attack[] = [
  {
    name: 'an entry tick older than the allowed age',
    error: 'PriceTickTooOld',
    without: SKIP.entryAge,
    run: async (s) => placeAt(s, s.signer.tick(50n, nowMs(s.chain) - 31_000, PRICE)),
  },
  {
    name: 'an entry price that is not the verified tick',
    error: 'PriceTickMismatch',
    without: SKIP.priceMatch,
    run: async (s) => placeAt(s, s.signer.tick(50n, nowMs(s.chain) - 100, PRICE), FORGED),
  },
  {
    name: 'an entry tick signed by a key that is not trusted',
    error: 'UntrustedPriceSigner',
    without: SKIP.trusted,
    run: async (s) => placeAt(s, s.other.tick(50n, nowMs(s.chain) - 100, FORGED)),
  },
  {
    name: 'an entry tick more than 8 ticks older than one a bet already opened at, replayed on a second bet',
    error: 'PriceTickReplayed',
    without: SKIP.entryReplay,
    prepare: async (s) => {
      await placeSigned(s.chain, s.chain.newBettor(), s.signer.tick(60n, nowMs(s.chain) - 100, PRICE));
    },
    run: (s) => placeAt(s, s.signer.tick(51n, nowMs(s.chain) - 500, FORGED)),
  },
];

let victim: Bettor | undefined;
/** Places a bet for a fresh bettor at `tick`, claiming `price`. */
async function placeAt(s: Scene, tick: SignedTick, price = tick.price): Promise<Sent> {
  victim = s.chain.newBettor();
  const ix = await s.chain.placeBetIx(victim, { side: 0, amount: 1_000_000_000n, entryPrice: price }, { tick: { instruction: 0, signature: 0 } });
  return s.chain.send([ed25519Ix([{ tick }]), ix], [s.chain.relayer, victim.key]);
}

describeAttacks('signed prices: attacks on close_bet', ATTACKS, {
  scene,
  holdings,
  refused: (s) => () => expect(s.chain.readBet(s.bet).status).toBe(0),
  passed: (s) => () => expect(s.chain.readBet(s.bet).status).not.toBe(0),
});

describeAttacks('signed prices: attacks on place_bet', ENTRY_ATTACKS, {
  scene,
  holdings,
  refused: (s) => () => {
    expect(s.chain.readAccount(s.chain.betAddress(victim!, 0n))).toBeNull();
    expect(s.chain.tokenBalance(victim!.token)).toBe(100_000_000_000n);
  },
  passed: (s) => () => expect(s.chain.readAccount(s.chain.betAddress(victim!, 0n))).not.toBeNull(),
});
