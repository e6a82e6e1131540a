/**
 * The gateway's chain port over Solana JSON-RPC (docs/architecture.md#the-chain-mirror; the gateway always
 * talks JSON-RPC, to the local chain or to a real validator, and keeps the chain off the request path).
 *
 * Reads answer from the chain mirror (`../mirror/`), kept current by subscriptions. Writes are
 * signed by the key of their role (docs/architecture.md#the-contract: roles are separate): the relayer places,
 * settles and reclaims bets and pays fees and rent; the admin pauses; the mint authority of the
 * local test mint runs the faucet; the upgrade authority initialises. A placement is one send and
 * one (batched) status poll; the new bet comes from the mirror. Closes go through the close
 * batcher, several per transaction.
 *
 * This file holds the bet writes; the options are in options.ts, the wiring and reads in reads.ts,
 * the administration and faucet in admin.ts.
 */
import { type Keypair, PublicKey, Transaction } from '@solana/web3.js';
import { bettorAddress, betAddress, closeBetIx, placeBetIx, reclaimBetIx, refundExpiredIx, tokenAccountOf } from '../codec.ts';
import { uniqueMemo } from '../faucet.ts';
import {
  ChainUnavailable,
  NotSent,
  OutcomeUnknown,
  ProgramRefusal,
  type BetRef,
  type ChainPort,
  type Closed,
  type PlaceBet,
  type IntentTerms,
  type Placed,
  type SignedTick,
  type WalletPlacement,
  type WalletPlacementTerms,
} from '../port.ts';
import { ed25519TicksIx } from '../codec/ed25519.ts';
import { ed25519IntentIx, intentMessage } from '../codec/intent.ts';
import { CONFIG } from '../codec/addresses.ts';
import { PROGRAM_ID } from '../../../program/index.ts';
import { priceE8Of, verifyMessage } from '../../feed/tick-message.ts';
import { readPriceRules } from '../price-rules.ts';
import { IntentKeyBusy, type Landing } from '../tx-sender.ts';
import { RpcChainAdmin } from './admin.ts';
import { ERR } from './reads.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { SerialQueue } from '../../../kernel/serial-queue.ts';

export { pubsubUrlOf, type ChainKeys, type RpcChainOptions } from './options.ts';

/** How often a placement waiting for its answer looks whether its chain became unreachable. */
const UNREACHABLE_CHECK_MS = 100;

/** Pause before a placement asks again for a bettor another gateway is placing for. */
const KEY_BUSY_WAIT_MS = 150;

/** How old the last read of the contract's price rules may be before it is read again (in the background). */
const PRICE_RULES_TTL_MS = 2_000;

/** Price x 1e8 of a signed tick. */
const e8 = (tick: SignedTick): bigint => priceE8Of(tick.price) ?? 0n;

/** Key of a bettor's placement in the intent store. */
const PLACE_KEY = 'place_bet:';
/** Times a placement refused for an entry tick more than 8 older than one a bet already opened at is signed again. */
const ENTRY_TICK_RETRIES = 3;

/** One placement's state, as its answer deadline reads it. */
interface Attempt {
  /** its landing, once submitted */
  landing: Landing | null;
  /** its caller was answered (at the deadline): if it has not been sent yet, it never is */
  answered: boolean;
  /** its last try was not sent: another gateway was landing a transaction for the bettor */
  bettorBusy: boolean;
}

/** Sort key of reclaims in the close batcher: after any close. */
const RECLAIM_AFTER_CLOSES = 2n ** 63n;

/** ChainPort over JSON-RPC. */
export class RpcChain extends RpcChainAdmin implements ChainPort {
  /** placements per bettor in flight (serialised: each needs the previous one's seq) */
  private readonly placing = new SerialQueue();
  /** the placement landing now, per bettor */
  private readonly landingNow = new Map<string, Landing>();
  /** whether the contract requires signed prices, and when that was read */
  private signedRule: { required: boolean; at: number } | null = null;
  /** the read of the price rules under way */
  private rulesRead: Promise<boolean> | null = null;

  /**
   * Whether the contract requires signed prices. Only the first call waits for the chain: after
   * that the last answer is used and read again in the background once it is PRICE_RULES_TTL_MS
   * old, so a placement or a close never waits on that read (under a 429 burst it would wait
   * out the burst before sending anything). A change by the admin reaches the gateway within the
   * TTL plus one read.
   */
  async signedPricesRequired(): Promise<boolean> {
    const held = this.signedRule;
    if (held === null) return this.refreshPriceRules();
    if (Date.now() - held.at >= PRICE_RULES_TTL_MS)
      this.refreshPriceRules().catch((err: unknown) =>
        this.opts.log?.debug({ err: err instanceof Error ? err.message : err }, 'price rules not read; the last answer stays'),
      );
    return held.required;
  }

  private refreshPriceRules(): Promise<boolean> {
    this.rulesRead ??= readPriceRules(this.rpc)
      .then((rules) => {
        this.signedRule = { required: rules?.requireSigned === true, at: Date.now() };
        return this.signedRule.required;
      })
      .finally(() => (this.rulesRead = null));
    return this.rulesRead;
  }

  /** The entry tick a placement carries when signed prices are required (the newest signed tick), or null when they are not. */
  private async entryTick(): Promise<SignedTick | null> {
    if (!(await this.signedPricesRequired())) return null;
    const tick = this.opts.tickProofs?.latest();
    // no signed tick held: the placement cannot be proven, like a bet asked for without a fresh price
    if (!tick) throw new ProgramRefusal(6040, 'PriceTickMissing', 'signed prices are required and no signed tick is held');
    return tick;
  }

  /** The exit pair a close carries when signed prices are required, or null when they are not; throws while it cannot be formed yet. */
  private async exitTicks(expireTime: bigint, exitPrice: bigint): Promise<[SignedTick, SignedTick] | null> {
    if (!(await this.signedPricesRequired())) return null;
    const pair = (await this.opts.tickProofs?.exitPair(expireTime)) ?? 'no price history';
    if (typeof pair === 'string')
      throw new ChainUnavailable(`close of a bet expiring at ${expireTime}: the signed ticks around its expiry are not held (yet): ${pair}`);
    if (e8(pair[0]) !== exitPrice) throw new Error(`exit price ${exitPrice} is not the signed tick at expiry (${pair[0].price})`);
    return pair;
  }

  /**
   * Places a bet. With signed prices, entry ticks go back at most 8 ticks on chain: a placement
   * signed at an older tick that lands after one at a tick more than 8 newer is refused
   * (`PriceTickReplayed`; in a burst, placements land in any order), and is signed again at the newest tick, at most
   * ENTRY_TICK_RETRIES times (docs/decisions.md#what-the-gateway-sends). One sent without a tick
   * while the admin had just turned signed prices on (`PriceTickMissing` from the chain) is sent
   * again with one once the rules read again say so.
   */
  async placeBet(asked: PlaceBet): Promise<Placed> {
    for (let retry = 0; ; retry++) {
      try {
        return await this.placeOnce(asked);
      } catch (err) {
        if (err instanceof ProgramRefusal && err.code === ERR.priceTickMissing && this.signedRule?.required === false && retry < ENTRY_TICK_RETRIES) {
          // a rules read that fails leaves the refusal as the answer
          if (await this.refreshPriceRules().catch(() => false)) continue;
        }
        if (!(err instanceof ProgramRefusal) || err.code !== ERR.priceTickReplayed || retry >= ENTRY_TICK_RETRIES) throw err;
        this.opts.log?.info(
          { retry: retry + 1, of: ENTRY_TICK_RETRIES },
          'placement landed after a newer entry tick was used; signing it again at the newest tick',
        );
      }
    }
  }

  private async placeOnce(asked: PlaceBet): Promise<Placed> {
    let bet = asked;
    const { mint, vault } = await this.requireStatics();
    const bettor = bet.stake.kind === 'signer' ? bet.stake.bettor.publicKey : bet.stake.bettor;
    const signers = bet.stake.kind === 'signer' ? [bet.stake.bettor] : [];
    const bettorToken = tokenAccountOf(mint, bettor);
    // the bettor's next placement waits for this one's whole landing, not for its answer: a
    // second intent is never signed while the first can still land
    const key = bettor.toBase58();
    const attempt: Attempt = { landing: null, answered: false, bettorBusy: false };
    let seenOnChain: (placed: Placed) => void = () => undefined;
    const evidence = new Promise<Placed>((resolve) => (seenOnChain = resolve));
    const placed = this.withFreshSeq(
      bettor,
      async (seq) => {
        // its caller was answered while it waited: it is never sent
        if (attempt.answered) throw new NotSent('place_bet', 'busy', this.opts.answerWithinMs ?? 5_000);
        attempt.bettorBusy = false;
        // with signed prices the bet opens at the newest signed tick when it is signed (docs/decisions.md#signed-prices)
        const tick = await this.entryTick();
        if (tick) bet = { ...bet, entryPrice: e8(tick) };
        // a delegated bet carries its bettor's signed intent for this seq (docs/decisions.md#bet-intents)
        const proofs = tick ? [ed25519TicksIx([tick])] : [];
        const intent = bet.stake.kind === 'delegate' ? bet.stake.intent : null;
        if (intent) {
          const message = this.intentMessage({ bettor, side: bet.side, amount: bet.amount, betNumber: seq, validUntil: intent.validUntil });
          proofs.push(ed25519IntentIx({ bettor, signature: intent.signature, message }));
        }
        const ix = placeBetIx(
          { bettor, seq, bettorToken, vault, relayer: this.relayer, delegated: bet.stake.kind === 'delegate' },
          bet.side,
          bet.amount,
          bet.entryPrice,
          tick ? { instruction: 0, signature: 0 } : undefined,
          intent ? { instruction: proofs.length - 1, signature: 0, validUntil: intent.validUntil } : undefined,
        );
        const ixs = [...proofs, ix, uniqueMemo('bet')];
        const current = this.sender.submit('place_bet', ixs, this.keys.relayer, signers, {
          key: `${PLACE_KEY}${key}`,
          // the bet account at this seq exists: this placement (or one that took its seq) is on chain, resending cannot help
          seen: () => this.mirror.peekBet({ bettor: key, seq }) !== null,
          // answered at its deadline before it was sent: it never is
          abandoned: () => attempt.answered,
        });
        attempt.landing = current;
        this.landingNow.set(key, current);
        // a failed look only leaves the answer to the status
        this.seenInMirror({ bettor: key, seq }, bet, current).then(
          (seen) => seen && seenOnChain(seen),
          () => undefined,
        );
        return this.whileLanding(
          key,
          current,
          current.outcome.then(async ({ signature, slot }) => ({ signature, bet: await this.landedBet({ bettor: key, seq }, slot) })),
        );
      },
      () => (attempt.bettorBusy = true),
    );
    // waiting behind an earlier placement of the bettor, that one is what the answer names
    return this.answerWithin(Promise.race([placed, evidence]), attempt, () => this.landingNow.get(key) ?? null, 'place_bet');
  }

  async walletPlacement(terms: WalletPlacementTerms): Promise<WalletPlacement> {
    const { mint, vault } = await this.requireStatics();
    const { bettor } = terms;
    // with signed prices the bet opens at the newest signed tick, verified on chain as for any placement
    const tick = await this.entryTick();
    const entryPrice = tick ? e8(tick) : terms.entryPrice;
    const ix = placeBetIx(
      { bettor, seq: terms.betNumber, bettorToken: tokenAccountOf(mint, bettor), vault, relayer: this.relayer, delegated: false },
      terms.side,
      terms.amount,
      entryPrice,
      tick ? { instruction: 0, signature: 0 } : undefined,
    );
    const { blockhash, lastValidBlockHeight } = await this.sender.recentBlockhash();
    const tx = new Transaction({ feePayer: bettor, blockhash, lastValidBlockHeight });
    if (tick) tx.add(ed25519TicksIx([tick]));
    tx.add(ix);
    tx.partialSign(this.keys.relayer);
    return { transaction: tx.serialize({ requireAllSignatures: false, verifySignatures: false }), entryPrice };
  }

  intentMessage(terms: IntentTerms): Uint8Array {
    return intentMessage({ program: PROGRAM_ID, config: CONFIG, ...terms });
  }

  intentSigned(terms: IntentTerms, signature: Uint8Array): boolean {
    return verifyMessage(terms.bettor.toBytes(), this.intentMessage(terms), signature);
  }

  /**
   * The placement as the mirror sees it land (docs/architecture.md#answering-from-the-mirror),
   * before its status is served: the bet at its seq, with its side, amount and entry price, while
   * its intent is recorded as this engine's, so no other gateway is placing for the bettor. Null
   * when none is seen within the answer deadline (its status then decides).
   */
  private async seenInMirror(ref: BetRef, bet: PlaceBet, landing: Landing): Promise<Placed | null> {
    const held = await this.mirror.betAppears(ref, this.opts.answerWithinMs ?? 5_000);
    const same = held !== null && held.side === bet.side && held.amount === bet.amount && held.entryPrice === bet.entryPrice;
    return same && landing.claimed() ? { signature: landing.signature(), bet: held } : null;
  }

  /**
   * A placement's result, or at the answer deadline what is known of it
   * (docs/gateway-api.md#profile-a-post-apibet): `OutcomeUnknown` with the signature once its bytes
   * were handed to a send (they may land: the landing goes on, and a bet that lands later is adopted
   * and announced by the settler); `ChainUnavailable` only when the chain refused the connection;
   * otherwise `NotSent` (it was never sent, and now never will be).
   */
  private answerWithin<T>(result: Promise<T>, attempt: Attempt, earlier: () => Landing | null, what: string): Promise<T> {
    const deadlineMs = this.opts.answerWithinMs ?? 5_000;
    return new Promise<T>((resolve, reject) => {
      const stop = () => {
        clearTimeout(timer);
        clearInterval(watch);
      };
      const timer = setTimeout(() => {
        stop();
        attempt.answered = true;
        // waiting behind an earlier placement of the bettor, that one is what the answer names
        const l = attempt.landing ?? earlier();
        if (l?.sent() && l.signature()) reject(new OutcomeUnknown(what, l.signature(), deadlineMs));
        else if (l?.unreachable()) reject(new ChainUnavailable(`${what}: the chain cannot be reached`));
        else reject(new NotSent(what, attempt.bettorBusy ? 'bettor_busy' : 'busy', deadlineMs));
      }, deadlineMs);
      // a send whose answer was lost to a chain that now refuses connections: said at once (it goes on landing if it was taken)
      const watch = setInterval(() => {
        const l = attempt.landing ?? earlier();
        if (!l?.unreachable()) return;
        stop();
        attempt.answered = true;
        reject(new ChainUnavailable(`${what}: the chain cannot be reached (its answer to the send was lost)`));
      }, UNREACHABLE_CHECK_MS);
      result.then(
        (value) => {
          stop();
          resolve(value);
        },
        (err: unknown) => {
          stop();
          reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
    });
  }

  /**
   * Resumes the placements an earlier run recorded and did not see land (docs/architecture.md#landing-transactions):
   * each bettor's next placement waits for its resumed one, as for one placed in this run.
   * Resolves with how many were resumed.
   */
  async resumeIntents(): Promise<number> {
    const recorded = (await this.opts.intents?.list()) ?? [];
    for (const intent of recorded) {
      const landing = this.sender.resume(intent);
      if (!intent.key.startsWith(PLACE_KEY)) continue;
      const bettor = intent.key.slice(PLACE_KEY.length);
      this.landingNow.set(bettor, landing);
      this.placing.run(bettor, () => this.whileLanding(bettor, landing, landing.outcome)).catch(() => undefined); // its end is all the bettor's next placement waits for
    }
    return recorded.length;
  }

  async closeBet(ref: BetRef, exitPrice: bigint): Promise<Closed> {
    const held = await this.mirror.bet(ref);
    if (held && held.status !== 0) return { signature: '', status: held.status, exitPrice: held.exitPrice, already: true };
    const { mint, vault } = await this.requireStatics();
    const bettor = new PublicKey(ref.bettor);
    const expireTime = held?.expireTime ?? 0n;
    const pair = await this.exitTicks(expireTime, exitPrice);
    const ix = closeBetIx(
      { ref, bettorToken: tokenAccountOf(mint, bettor), vault, relayer: this.relayer },
      exitPrice,
      pair ? { instruction: 0, first: 0, next: 1 } : undefined,
    );
    // bets expiring in the same second share one pair, so one Ed25519 instruction serves their pack
    const prelude = pair ? { key: `${pair[0].signed.signer}:${pair[0].signed.seq}`, instruction: ed25519TicksIx(pair) } : undefined;
    try {
      const { signature, slot } = await this.batcher.submit({ expireTime, instruction: ix, ...(prelude ? { prelude } : {}) });
      const closed = await this.landedBet(ref, slot);
      return { signature, status: closed.status, exitPrice: closed.exitPrice, already: false };
    } catch (err) {
      return this.alreadyClosedOr(ref, err);
    }
  }

  async closeAndReplace(ref: BetRef, exitPrice: bigint, bettor: Keypair, entryPrice: bigint): Promise<{ closed: Closed; placed: Placed }> {
    const { mint, vault } = await this.requireStatics();
    const bet = await this.mirror.bet(ref);
    if (!bet) throw new ProgramRefusal(6023, 'InvalidAccountData', `bet ${ref.bettor}/${ref.seq} does not exist`);
    const bettorToken = tokenAccountOf(mint, bettor.publicKey);
    // with signed prices one Ed25519 instruction carries the exit pair (records 0, 1) and the entry tick (record 2)
    const pair = await this.exitTicks(bet.expireTime, exitPrice);
    const entry = pair ? await this.entryTick() : null;
    const price = entry ? e8(entry) : entryPrice;
    return this.withFreshSeq(bettor.publicKey, async (seq) => {
      const close = closeBetIx({ ref, bettorToken, vault, relayer: this.relayer }, exitPrice, pair ? { instruction: 0, first: 0, next: 1 } : undefined);
      const place = placeBetIx(
        { bettor: bettor.publicKey, seq, bettorToken, vault, relayer: this.relayer, delegated: false },
        bet.side,
        bet.amount,
        price,
        pair ? { instruction: 0, signature: 2 } : undefined,
      );
      const ixs = pair && entry ? [ed25519TicksIx([...pair, entry]), close, place] : [close, place];
      this.settling('close_bet + place_bet');
      const { signature, slot } = await this.sender.land('close_bet + place_bet', [...ixs, uniqueMemo('replay')], this.keys.relayer, [bettor]);
      const [closedBet, placedBet] = [await this.landedBet(ref, slot), await this.landedBet({ bettor: bettor.publicKey.toBase58(), seq }, slot)];
      return { closed: { signature, status: closedBet.status, exitPrice: closedBet.exitPrice, already: false }, placed: { signature, bet: placedBet } };
    });
  }

  async refundExpired(ref: BetRef): Promise<Closed> {
    const held = await this.mirror.bet(ref);
    if (held && held.status !== 0) return { signature: '', status: held.status, exitPrice: held.exitPrice, already: true };
    const { mint, vault } = await this.requireStatics();
    const ix = refundExpiredIx({ ref, bettorToken: tokenAccountOf(mint, new PublicKey(ref.bettor)), vault });
    try {
      this.settling('refund_expired');
      const { signature, slot } = await this.sender.land('refund_expired', [ix], this.keys.relayer);
      const closed = await this.landedBet(ref, slot);
      return { signature, status: closed.status, exitPrice: closed.exitPrice, already: false };
    } catch (err) {
      return this.alreadyClosedOr(ref, err);
    }
  }

  async reclaimBet(ref: BetRef): Promise<boolean> {
    const bet = await this.mirror.bet(ref);
    if (!bet) return false;
    // packed with the closes, after every close waiting (a reclaim is never urgent)
    await this.batcher.submit({ expireTime: RECLAIM_AFTER_CLOSES, instruction: reclaimBetIx({ ref, payer: new PublicKey(bet.payer), relayer: this.relayer }) });
    this.mirror.forgetBet(ref);
    return true;
  }

  /**
   * Runs a placement at the bettor's next seq as the mirror knows it, one placement per bettor at
   * a time in this process (the next one sees the first's bettor state); when the program says the
   * address is not the next one (the mirror was behind: another gateway, a lost notification),
   * reads the bettor state and tries once more.
   */
  private withFreshSeq<T>(bettor: PublicKey, place: (seq: bigint) => Promise<T>, onBettorBusy: () => void = () => undefined): Promise<T> {
    return this.placing.run(bettor.toBase58(), () => this.placeAtSeq(bettor, place, onBettorBusy));
  }

  /** `result`, with `landing` named as the bettor's landing placement until it settles. */
  private async whileLanding<T>(bettor: string, landing: Landing, result: Promise<T>): Promise<T> {
    try {
      return await result;
    } finally {
      if (this.landingNow.get(bettor) === landing) this.landingNow.delete(bettor);
    }
  }

  private async placeAtSeq<T>(bettor: PublicKey, place: (seq: bigint) => Promise<T>, onBettorBusy: () => void): Promise<T> {
    let refreshed = false;
    for (;;) {
      const seq = (await this.mirror.bettor(bettor))?.betCount ?? 0n;
      try {
        return await place(seq);
      } catch (err) {
        // another gateway's placement for this bettor is landing: this one waits for it (until its caller is answered)
        if (err instanceof IntentKeyBusy) {
          onBettorBusy();
          await sleep(KEY_BUSY_WAIT_MS);
          continue;
        }
        if (!(err instanceof ProgramRefusal) || err.code !== ERR.invalidPda || refreshed) throw err;
        refreshed = true;
        await this.mirror.refresh([bettorAddress(bettor)]);
      }
    }
  }

  /** A close that failed because the bet was already closed is that close's outcome (a retry, or another gateway). */
  private async alreadyClosedOr(ref: BetRef, err: unknown): Promise<Closed> {
    if (!(err instanceof ProgramRefusal) || err.code !== ERR.betAlreadyClosed) throw err;
    await this.mirror.refresh([betAddress(ref)]);
    const bet = this.mirror.peekBet(ref);
    if (!bet || bet.status === 0) throw err;
    return { signature: '', status: bet.status, exitPrice: bet.exitPrice, already: true };
  }
}
