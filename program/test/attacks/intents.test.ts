/**
 * Bet intents under attack (docs/decisions.md#bet-intents): the relayer holds an SPL Token
 * allowance on the bettor's tokens, and still cannot stake them in a bet the bettor did not sign
 * for, exactly as signed. Each attack is refused with every account it could touch left byte for
 * byte as it was; and each is run again on a test build of the program with exactly the check that
 * stops it left out (program/build/build.ts `buildProgramWithout`), where it succeeds: that check,
 * and no other, is what stops it.
 */
import { ComputeBudgetProgram, Keypair, PublicKey, TransactionInstruction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { ed25519IntentIx, intentMessage } from '../../../adapters/chain/codec/intent.ts';
import { PROGRAM_ID } from '../../index.ts';
import type { SignedIntent } from '../harness/instructions.ts';
import { BetChain, type Bettor, type Sent } from '../svm.ts';
import { FUNDS, PRICE, STAKE, describeAttacks, holdingsOf, lookAlikeSysvar, type Attack as AttackOn } from './support.ts';

/** The SKIP_* bits of program/src/prices.h that the attacks below name. */
const SKIP = {
  sysvarKey: 1 << 0,
  earlier: 1 << 1,
  ownData: 1 << 3,
  intentRequired: 1 << 15,
  intentSigner: 1 << 16,
  intentMessage: 1 << 17,
  intentExpiry: 1 << 18,
} as const;

/** What the bettor allowed the relayer to spend: more than any one bet, so only the intent limits it. */
const ALLOWANCE = 20n * STAKE;
const UP = { side: 0, amount: STAKE, entryPrice: PRICE };
const ED25519_PROGRAM = new PublicKey('Ed25519SigVerify111111111111111111111111111');
/** A record's instruction index that names the Ed25519 instruction's own data. */
const OWN = 0xffff;

/** A chain with relayer prices, and a bettor who approved the relayer as delegate of its tokens. */
interface Scene {
  chain: BetChain;
  bettor: Bettor;
}

async function scene(programBytes?: Uint8Array): Promise<Scene> {
  const chain = new BetChain(programBytes ? { programBytes } : {});
  await chain.setUp();
  const bettor = chain.newBettor();
  chain.approveRelayer(bettor, ALLOWANCE);
  return { chain, bettor };
}

/** The address of the bettor's next bet: where an attack would open one. */
const nextBet = (s: Scene): PublicKey => s.chain.betAddress(s.bettor, s.chain.nextSeq(s.bettor));

/** Every account an attack could touch: the next bet, the bettor state and token account, vault, config. */
const holdings = (s: Scene): string => holdingsOf(s.chain, [nextBet(s), s.bettor.state, s.bettor.token, s.chain.vault, s.chain.config]);

/** The delegated placement of `args` naming its intent at (`instruction`, record 0), valid until `validUntil`. */
const placeNaming = (s: Scene, instruction: number, validUntil: bigint, args = UP, accounts = {}): Promise<TransactionInstruction> =>
  s.chain.placeBetIx(s.bettor, args, { delegated: true, intent: { instruction, signature: 0, validUntil }, accounts });

/** Sends a delegated placement with an intent signed with `bend` (the relayer alone signs the transaction). */
async function placeWith(s: Scene, bend: Parameters<BetChain['signedIntent']>[2], args = UP): Promise<Sent> {
  return s.chain.send(await s.chain.delegatedIxs(s.bettor, args, { bend }), [s.chain.relayer]);
}

/** The text of the bettor's first bet, UP, for 9 stakes, valid until `validUntil`: what the attacks below would like the program to read. */
const nineStakes = (s: Scene, validUntil: bigint): Uint8Array =>
  intentMessage({ program: PROGRAM_ID, config: s.chain.config, bettor: s.bettor.key.publicKey, side: 'UP', amount: 9n * STAKE, betNumber: 0n, validUntil });

/** Ed25519 instruction data of `size` bytes with one signature record as given (the body is the caller's). */
function ed25519Data(
  r: { signature: number; signatureIndex: number; key: number; keyIndex: number; message: number; len: number; messageIndex: number },
  size: number,
): Buffer {
  const data = Buffer.alloc(size);
  data[0] = 1;
  [r.signature, r.signatureIndex, r.key, r.keyIndex, r.message, r.len, r.messageIndex].forEach((v, i) => data.writeUInt16LE(v, 2 + 2 * i));
  return data;
}

/** An attack on an intent scene (its `prepare`: a bet the intent was signed for). */
type Attack = AttackOn<Scene>;

/** The intent the replay attack's first bet was placed with, per scene. */
const spent = new WeakMap<Scene, SignedIntent>();

const ATTACKS: Attack[] = [
  {
    name: 'a delegated bet with no intent: the intent ref names an instruction the transaction does not have',
    error: 'IntentMissing',
    without: SKIP.intentRequired,
    run: async (s) => s.chain.send([await placeNaming(s, 5, s.chain.now() + 300n)], [s.chain.relayer]),
  },
  {
    name: 'a delegated bet with no intent: the intent ref names an earlier instruction that is not the Ed25519 program',
    error: 'IntentMissing',
    without: SKIP.intentRequired,
    run: async (s) =>
      s.chain.send([ComputeBudgetProgram.setComputeUnitLimit({ units: 200_000 }), await placeNaming(s, 0, s.chain.now() + 300n)], [s.chain.relayer]),
  },
  {
    name: "the bettor's intent in an Ed25519 instruction after the placement",
    error: 'IntentMissing',
    without: SKIP.earlier,
    run: async (s) => {
      const intent = s.chain.signedIntent(s.bettor, UP);
      return s.chain.send([await placeNaming(s, 1, intent.validUntil), intent.ix], [s.chain.relayer]);
    },
  },
  {
    name: 'an intent signed by another key (the relayer signs "for" the bettor)',
    error: 'IntentSignerMismatch',
    without: SKIP.intentSigner,
    run: (s) => placeWith(s, { signer: s.chain.relayer }),
  },
  {
    name: 'an intent for the other side',
    error: 'IntentMismatch',
    without: SKIP.intentMessage,
    run: (s) => placeWith(s, { side: 'DOWN' }),
  },
  {
    name: 'an intent for another amount (the relayer stakes 5 times what was signed)',
    error: 'IntentMismatch',
    without: SKIP.intentMessage,
    run: async (s) => {
      const intent = s.chain.signedIntent(s.bettor, UP);
      return s.chain.send([intent.ix, await placeNaming(s, 0, intent.validUntil, { ...UP, amount: 5n * STAKE })], [s.chain.relayer]);
    },
  },
  {
    name: 'an intent naming another bettor',
    error: 'IntentMismatch',
    without: SKIP.intentMessage,
    run: (s) => placeWith(s, { bettor: Keypair.generate().publicKey }),
  },
  {
    name: 'an intent naming another config',
    error: 'IntentMismatch',
    without: SKIP.intentMessage,
    run: (s) => placeWith(s, { config: Keypair.generate().publicKey }),
  },
  {
    name: 'an intent naming another program',
    error: 'IntentMismatch',
    without: SKIP.intentMessage,
    run: (s) => placeWith(s, { program: Keypair.generate().publicKey }),
  },
  {
    name: 'an intent replayed for a second bet once the first was settled',
    error: 'IntentMismatch',
    without: SKIP.intentMessage,
    prepare: async (s) => {
      const intent = s.chain.signedIntent(s.bettor, UP);
      s.chain.mustSend(await s.chain.delegatedIxs(s.bettor, UP, { intent }), [s.chain.relayer]);
      s.chain.setTime(s.chain.now() + 15n);
      s.chain.mustSend([await s.chain.closeBetIx(s.chain.betAddress(s.bettor, 0n), s.bettor, PRICE - 1n)], [s.chain.relayer]);
      spent.set(s, intent);
    },
    run: async (s) => s.chain.send(await s.chain.delegatedIxs(s.bettor, UP, { intent: spent.get(s)! }), [s.chain.relayer]),
  },
  {
    name: 'an expired intent',
    error: 'IntentExpired',
    without: SKIP.intentExpiry,
    run: (s) => placeWith(s, { validUntil: s.chain.now() - 1n }),
  },
  {
    name: "an expired intent whose valid-until the relayer moved later in the placement's data",
    error: 'IntentMismatch',
    without: SKIP.intentMessage,
    run: async (s) => {
      const intent = s.chain.signedIntent(s.bettor, UP, { validUntil: s.chain.now() - 1n });
      return s.chain.send([intent.ix, await placeNaming(s, 0, s.chain.now() + 300n)], [s.chain.relayer]);
    },
  },
  {
    name: 'an Ed25519 instruction whose record points its message at another instruction (it verified a different intent)',
    error: 'IntentMissing',
    without: SKIP.ownData,
    run: async (s) => {
      // instruction 1 carries the bettor's key and its signature of the real intent (1000000000 units),
      // and a forged intent of the same length (9000000000 units) in its own data, but its record
      // points the message at instruction 0, which holds the real one (and verifies it too, with the
      // key and signature of instruction 1): the runtime verifies the real intent twice
      const real = s.chain.signedIntent(s.bettor, UP);
      const forged = nineStakes(s, real.validUntil);
      const len = real.message.length;
      const at = { message: 16, key: 16 + len, signature: 16 + len + 32 };
      const holder = ed25519Data({ ...at, signatureIndex: 1, keyIndex: 1, messageIndex: OWN, len }, 16 + len);
      holder.set(real.message, at.message);
      const bent = ed25519Data({ ...at, signatureIndex: OWN, keyIndex: OWN, messageIndex: 0, len }, 16 + len + 96);
      bent.set(forged, at.message);
      bent.set(s.bettor.key.publicKey.toBytes(), at.key);
      bent.set(real.signature, at.signature);
      const ixs = [holder, bent].map((data) => new TransactionInstruction({ programId: ED25519_PROGRAM, keys: [], data }));
      return s.chain.send([...ixs, await placeNaming(s, 1, real.validUntil, { ...UP, amount: 9n * STAKE })], [s.chain.relayer]);
    },
  },
  {
    name: 'a look-alike account passed as the instructions sysvar, claiming a forged intent (Wormhole, 2022)',
    error: 'InvalidInstructionsSysvar',
    without: SKIP.sysvarKey,
    run: async (s) => {
      const validUntil = s.chain.now() + 300n;
      const message = nineStakes(s, validUntil);
      const unsigned = ed25519IntentIx({ bettor: s.bettor.key.publicKey, signature: new Uint8Array(64), message }).data;
      const fake = lookAlikeSysvar(s.chain, unsigned);
      return s.chain.send([await placeNaming(s, 0, validUntil, { ...UP, amount: 9n * STAKE }, { instructions: fake })], [s.chain.relayer]);
    },
  },
];

describeAttacks('bet intents: attacks on place_bet_delegated', ATTACKS, {
  scene,
  holdings,
  refused: (s) => {
    const target = nextBet(s);
    return () => expect(s.chain.readAccount(target)).toBeNull();
  },
  passed: (s) => {
    const staked = s.chain.tokenBalance(s.bettor.token);
    const target = nextBet(s);
    return () => {
      expect(s.chain.readAccount(target)).not.toBeNull();
      expect(s.chain.tokenBalance(s.bettor.token)).toBeLessThan(staked);
    };
  },
});

describe('bet intents: the honest path', () => {
  it('a valid intent places exactly one bet, and the balances move by its amount', async () => {
    const s = await scene();
    const { chain, bettor } = s;
    const config = chain.readConfig();
    const vault = chain.tokenBalance(chain.vault);
    const amount = 3n * STAKE;
    const sent = chain.mustSend(await chain.delegatedIxs(bettor, { side: 1, amount, entryPrice: PRICE }), [chain.relayer]);
    expect(sent.ok).toBe(true);
    expect(chain.readBet(chain.betAddress(bettor, 0n))).toMatchObject({ id: config.next_bet_id, seq: 0n, side: 1, amount, entry_price: PRICE, status: 0 });
    expect(chain.readBettorState(bettor)).toMatchObject({ bet_count: 1n, has_open_bet: 1 });
    expect(chain.readConfig()).toMatchObject({ next_bet_id: config.next_bet_id + 1n, counter: config.counter + 1n });
    expect(chain.tokenBalance(bettor.token)).toBe(FUNDS - amount);
    expect(chain.tokenBalance(chain.vault)).toBe(vault + amount);
    expect(chain.readAccount(chain.betAddress(bettor, 1n))).toBeNull();
  });
});
