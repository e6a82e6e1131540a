/**
 * A settled bet checked from its account and signed ticks alone: an honest settlement verifies, and
 * every way a relayer could have chosen a price (or the gateway could have handed over other ticks)
 * is named.
 */
import { Keypair } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import type { SignedEvidence, SignedEvidenceTick } from '../../adapters/store/bet-history/port.ts';
import { encodeTickMessage, privateKeyOfSeed, signMessage } from '../../adapters/feed/tick-message.ts';
import { verifyBet, type ChainBetFacts, type PriceTrust } from './verify-bet.ts';

const signerKeys = Keypair.generate();
const signer = signerKeys.publicKey.toBase58();
const other = Keypair.generate();

function tick(seq: number, ts: number, price: number, keys = signerKeys): SignedEvidenceTick {
  const message = encodeTickMessage({ seq: BigInt(seq), ts, priceE8: BigInt(price) });
  const signature = signMessage(privateKeyOfSeed(keys.secretKey.subarray(0, 32)), message).toString('base64');
  return { price, ts, seq, signature, signer: keys.publicKey.toBase58() };
}

const BET_TIME = 1_800_000_000n;
const EXPIRE = BET_TIME + 15n;
const E_MS = Number(EXPIRE) * 1000;
const trust: PriceTrust = { signers: [{ key: signer, expiresAt: EXPIRE + 1000n }], maxEntryAgeMs: 30_000n };

/** An UP bet at 150.00 that settled at 151.00 (a win). */
const won: ChainBetFacts = { id: 7n, side: 'UP', entryPrice: 15_000_000_000n, exitPrice: 15_100_000_000n, betTime: BET_TIME, expireTime: EXPIRE, status: 1 };
const honest = (): SignedEvidence => ({
  entry: tick(10, Number(BET_TIME) * 1000 - 400, 15_000_000_000),
  exit: [tick(40, E_MS - 200, 15_100_000_000), tick(41, E_MS + 300, 15_200_000_000)],
});

const problems = (bet: ChainBetFacts, signed: SignedEvidence | null, t: PriceTrust = trust) => verifyBet(bet, signed, t).problems;

describe('verifyBet', () => {
  it('verifies an honest settlement, and says what held', () => {
    const v = verifyBet(won, honest(), trust);
    expect(v).toMatchObject({ id: '7', verdict: 'verified', problems: [] });
    expect(v.held).toHaveLength(3);
    expect(verifyBet({ ...won, side: 'DOWN', status: 2 }, honest(), trust).verdict).toBe('verified');
  });

  it('leaves an open bet as open', () => {
    expect(verifyBet({ ...won, status: 0, exitPrice: 0n }, null, trust).verdict).toBe('open');
  });

  it('takes a refund at the entry price without an exit pair, and checks a tie by its pair', () => {
    expect(verifyBet({ ...won, status: 3, exitPrice: won.entryPrice }, { entry: honest().entry, exit: null }, trust).verdict).toBe('verified');
    const tie: SignedEvidence = { entry: honest().entry, exit: [tick(40, E_MS - 200, 15_000_000_000), tick(41, E_MS + 300, 1)] };
    expect(verifyBet({ ...won, status: 3, exitPrice: won.entryPrice }, tie, trust).verdict).toBe('verified');
  });

  it('refuses an exit price no tick signed (a relayer-chosen price)', () => {
    expect(problems({ ...won, exitPrice: 15_150_000_000n }, honest())).toEqual([expect.stringContaining('not the recorded exit price')]);
    expect(problems(won, { entry: honest().entry, exit: null })).toEqual(['no signed exit pair']);
  });

  it('refuses a forged or altered tick', () => {
    const e = honest();
    const [n, next] = e.exit!;
    expect(problems(won, { ...e, exit: [{ ...n, price: n.price + 1 }, next] })[0]).toContain('does not verify');
    expect(problems(won, { ...e, entry: { ...e.entry!, seq: 11 } })[0]).toContain('does not verify');
  });

  it('refuses ticks of an untrusted or expired signer', () => {
    const foreign: SignedEvidence = { entry: tick(10, Number(BET_TIME) * 1000, 15_000_000_000, other), exit: honest().exit };
    expect(problems(won, foreign)[0]).toContain('is not a trusted price signer');
    expect(problems(won, honest(), { ...trust, signers: [{ key: signer, expiresAt: BET_TIME - 1n }] })[0]).toContain('was trusted only until');
    // the same ticks verify against the key given by hand
    expect(problems(won, foreign, { ...trust, signers: [...trust.signers, { key: other.publicKey.toBase58(), expiresAt: EXPIRE }] })).toEqual([]);
  });

  it('refuses a pair that is not the last tick at or before expiry and the next one', () => {
    const entry = honest().entry;
    const gap: SignedEvidence = { entry, exit: [tick(40, E_MS - 200, 15_100_000_000), tick(42, E_MS + 300, 1)] };
    expect(problems(won, gap)[0]).toContain('not consecutive');
    const late: SignedEvidence = { entry, exit: [tick(41, E_MS + 300, 15_100_000_000), tick(42, E_MS + 800, 1)] };
    expect(problems(won, late)[0]).toContain('does not straddle');
    const stale: SignedEvidence = { entry, exit: [tick(40, E_MS - 31_000, 15_100_000_000), tick(41, E_MS + 300, 1)] };
    expect(problems(won, stale)[0]).toContain('more than 30 s');
    const twoSigners: SignedEvidence = { entry, exit: [honest().exit![0], tick(41, E_MS + 300, 1, other)] };
    expect(problems(won, twoSigners, { ...trust, signers: [...trust.signers, { key: other.publicKey.toBase58(), expiresAt: EXPIRE }] })[0]).toContain(
      'two signers',
    );
  });

  it('refuses an entry tick at another price or outside the entry age', () => {
    const e = honest();
    expect(problems({ ...won, entryPrice: 14_900_000_000n, status: 1 }, e)[0]).toContain('not the recorded entry price');
    const old: SignedEvidence = { ...e, entry: tick(10, Number(BET_TIME) * 1000 - 31_000, 15_000_000_000) };
    expect(problems(won, old)[0]).toContain('from the bet');
  });

  it('refuses a status the recorded prices do not give', () => {
    expect(problems({ ...won, status: 2 }, honest())).toEqual([expect.stringContaining('is not what the prices give (1)')]);
    expect(problems({ ...won, side: 'DOWN' }, honest())).toEqual([expect.stringContaining('is not what the prices give (2)')]);
  });
});
