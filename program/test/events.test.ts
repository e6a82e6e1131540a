/**
 * Every instruction emits its Anchor event through sol_log_data, and Anchor's own decoders read
 * it from the transaction logs: EventParser over the whole log, and BorshCoder.events.decode on
 * the "Program data: <base64>" line (discriminator sha256("event:<Name>")[..8] + Borsh fields).
 */
import { createHash } from 'node:crypto';
import { Keypair, PublicKey } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { EVENTS, eventByName } from '../index.ts';
import { tokenAccountAt } from './forge.ts';
import { BetChain, DEFAULT_PARAMS, START_TIME, type DecodedEvent, type Sent } from './svm.ts';

const STAKE = 1_000_000_000n;
const PRICE = 15_000_000_000n;
const WIN = (STAKE * 13_000n) / 10_000n;

/** The one event of a transaction, checked against the raw "Program data:" line too. */
function only(chain: BetChain, sent: Sent, name: string): Record<string, unknown> {
  const events = chain.events(sent);
  expect(events.map((e) => e.name)).toEqual([name]);
  const lines = sent.logs.filter((line) => line.startsWith('Program data: '));
  expect(lines).toHaveLength(1);
  const raw = Buffer.from(lines[0]!.slice('Program data: '.length), 'base64');
  expect([...raw.subarray(0, 8)]).toEqual(eventByName(name)!.discriminator);
  const direct = chain.coder.events.decode(lines[0]!.slice('Program data: '.length));
  expect(direct?.name).toBe(name);
  return events[0]!.data;
}

const key = (value: unknown): string => (value as PublicKey).toBase58();

describe('events', () => {
  it('event discriminators are sha256("event:<Name>")[..8]', () => {
    for (const event of EVENTS) {
      expect(event.discriminator, event.name).toEqual([...createHash('sha256').update(`event:${event.name}`).digest().subarray(0, 8)]);
    }
  });

  it('each instruction emits its event, decoded by Anchor from the logs', async () => {
    const chain = new BetChain();
    const seen = new Set<string>();
    const check = (sent: Sent, name: string): Record<string, unknown> => {
      seen.add(name);
      return only(chain, sent, name);
    };

    const init = check(await chain.setUp(DEFAULT_PARAMS, 10_000_000_000n), 'Initialized');
    expect([key(init.admin), key(init.relayer), key(init.mint), key(init.vault)]).toEqual(
      [chain.admin.publicKey, chain.relayer.publicKey, chain.mint, chain.vault].map((k) => k.toBase58()),
    );

    const bettor = chain.newBettor();
    const placed = await chain.placeBet(bettor, 1, STAKE, PRICE);
    const betPlaced = check(placed.sent, 'BetPlaced');
    expect(key(betPlaced.bettor)).toBe(bettor.key.publicKey.toBase58());
    expect(betPlaced).toMatchObject({ id: 1n, seq: 0n, side: 1, amount: STAKE, entry_price: PRICE, expire_time: START_TIME + 15n });

    chain.setTime(chain.now() + 15n);
    const closed = check(chain.mustSend([await chain.closeBetIx(placed.bet, bettor, PRICE - 5n)], [chain.relayer]), 'BetClosed');
    expect(key(closed.bettor)).toBe(bettor.key.publicKey.toBase58());
    expect(closed).toMatchObject({ id: 1n, status: 1, exit_price: PRICE - 5n, payout: WIN });

    const reclaimed = check(chain.mustSend([await chain.reclaimBetIx(placed.bet, bettor)], [chain.relayer]), 'BetReclaimed');
    expect(reclaimed).toMatchObject({ id: 1n });
    expect(key(reclaimed.bettor)).toBe(bettor.key.publicKey.toBase58());

    const bettorClosed = check(chain.mustSend([await chain.closeBettorIx(bettor)], [chain.relayer]), 'BettorClosed');
    expect([key(bettorClosed.bettor), key(bettorClosed.payer)]).toEqual([bettor.key.publicKey.toBase58(), chain.relayer.publicKey.toBase58()]);

    chain.approveRelayer(bettor, STAKE);
    const delegated = await chain.delegatedIxs(bettor, { side: 0, amount: STAKE, entryPrice: PRICE });
    const delegatedPlaced = check(chain.mustSend(delegated, [chain.relayer]), 'BetPlaced');
    expect(delegatedPlaced).toMatchObject({ id: 2n, seq: 0n, side: 0, amount: STAKE });

    chain.setTime(chain.now() + 15n + DEFAULT_PARAMS.refundAfterSeconds);
    const stranger = Keypair.generate();
    chain.airdrop(stranger.publicKey, 1_000_000_000n);
    const refunded = check(chain.mustSend([await chain.refundExpiredIx(chain.betAddress(bettor, 0n), bettor)], [stranger]), 'BetRefunded');
    expect(refunded).toMatchObject({ id: 2n, amount: STAKE });

    expect(check(chain.mustSend([await chain.setPausedIx(1)], [chain.admin]), 'PausedSet')).toEqual({ paused: 1 });

    const next = Keypair.generate();
    const relayerSet = check(chain.mustSend([await chain.setRelayerIx(next.publicKey)], [chain.admin]), 'RelayerSet');
    expect([key(relayerSet.old_relayer), key(relayerSet.new_relayer)]).toEqual([chain.relayer.publicKey.toBase58(), next.publicKey.toBase58()]);

    const successor = Keypair.generate();
    chain.airdrop(successor.publicKey, 1_000_000_000n);
    const proposed = check(chain.mustSend([await chain.proposeAdminIx(successor.publicKey)], [chain.admin]), 'AdminProposed');
    expect([key(proposed.admin), key(proposed.proposed)]).toEqual([chain.admin.publicKey.toBase58(), successor.publicKey.toBase58()]);
    const accepted = check(chain.mustSend([await chain.acceptAdminIx(successor.publicKey)], [successor]), 'AdminAccepted');
    expect([key(accepted.old_admin), key(accepted.new_admin)]).toEqual([chain.admin.publicKey.toBase58(), successor.publicKey.toBase58()]);

    const destination = tokenAccountAt(chain, successor.publicKey, chain.mint);
    const withdrawn = check(chain.mustSend([await chain.withdrawIx(123n, destination, { admin: successor.publicKey })], [successor]), 'Withdrawn');
    expect(withdrawn.amount).toBe(123n);
    expect(key(withdrawn.destination)).toBe(destination.toBase58());

    expect([...seen].sort()).toEqual(EVENTS.map((e) => e.name).sort());
  });

  it('a tie replay in one transaction logs BetClosed then BetPlaced; a cancelled proposal names the zero key', async () => {
    const chain = new BetChain();
    await chain.setUp();
    const bettor = chain.newBettor();
    const { bet, seq } = await chain.placeBet(bettor, 0, STAKE, PRICE);
    chain.setTime(chain.now() + 15n);
    const close = await chain.closeBetIx(bet, bettor, PRICE);
    const place = await chain.placeBetIx(bettor, { side: 0, amount: STAKE, entryPrice: PRICE }, { seq: seq + 1n });
    const events: DecodedEvent[] = chain.events(chain.mustSend([close, place], [chain.relayer, bettor.key]));
    expect(events.map((e) => e.name)).toEqual(['BetClosed', 'BetPlaced']);
    expect(events[0]!.data).toMatchObject({ id: 1n, status: 3, payout: STAKE });
    expect(events[1]!.data).toMatchObject({ id: 2n, seq: 1n });

    const cancel = chain.events(chain.mustSend([await chain.proposeAdminIx(PublicKey.default)], [chain.admin]));
    expect(key(cancel[0]!.data.proposed)).toBe(PublicKey.default.toBase58());
  });

  it('a refused transaction emits no event', async () => {
    const chain = new BetChain();
    await chain.setUp();
    const sent = chain.send([await chain.setPausedIx(1, { admin: chain.relayer.publicKey })], [chain.relayer]);
    expect(sent.ok).toBe(false);
    expect(sent.logs.some((line) => line.startsWith('Program data: '))).toBe(false);
  });
});
