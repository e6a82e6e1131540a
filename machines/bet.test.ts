import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { betMachine } from './bet.ts';
import type { BetEmittedEvent } from './bet-events.ts';
import type { BetInput, CloseInput, CloseOutput, PriceExitInput, PriceExitOutput } from './bet-types.ts';

const input: BetInput = {
  id: '3',
  bettor: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin',
  seq: '0',
  side: 'UP',
  amountUnits: '100000000',
  entryPrice: '15000000000',
  expireTime: 1_800_000_000,
};

/** A machine whose pricing answers `price` and whose close never answers (to stop mid-close). */
function machineWith(price: PriceExitOutput, close: () => Promise<CloseOutput>) {
  return betMachine.provide({
    actors: {
      priceExit: fromPromise<PriceExitOutput, PriceExitInput>(async () => price),
      closeOnChain: fromPromise<CloseOutput, CloseInput>(close),
    },
  });
}

const settle = () => new Promise((r) => setImmediate(r));

describe('bet machine', () => {
  it('stays open on ticks before expiry and starts settling at expiry', () => {
    const actor = createActor(betMachine, { input }).start();
    actor.send({ type: 'TICK', now: input.expireTime * 1000 - 1 });
    expect(actor.getSnapshot().value).toEqual({ open: 'placed' });
    actor.send({ type: 'TICK', now: input.expireTime * 1000 });
    expect(actor.getSnapshot().matches('settling')).toBe(true);
    actor.stop();
  });

  it('an effect the runtime did not provide fails into a backoff, never into a settlement', async () => {
    const actor = createActor(betMachine, { input }).start();
    actor.send({ type: 'TICK', now: input.expireTime * 1000 });
    await settle();
    expect(actor.getSnapshot().value).toEqual({ settling: 'pricingBackoff' });
    expect(actor.getSnapshot().context.lastError).toMatch(/not provided/);
    actor.stop();
  });

  it('a snapshot saved mid-close survives JSON and re-runs the close on restore, without a second bet_open', async () => {
    let closes = 0;
    const hanging = machineWith({ kind: 'price', value: '15000000001' }, () => {
      closes += 1;
      return new Promise<CloseOutput>(() => undefined);
    });
    const first = createActor(hanging, { input }).start();
    first.send({ type: 'TICK', now: input.expireTime * 1000 });
    await settle();
    expect(first.getSnapshot().value).toEqual({ settling: 'closing' });
    const saved = JSON.parse(JSON.stringify(first.getPersistedSnapshot())) as ReturnType<typeof first.getPersistedSnapshot>;
    first.stop();

    const answering = machineWith({ kind: 'price', value: '15000000001' }, async () => {
      closes += 1;
      return { kind: 'closed', status: 1, signature: 'sig' };
    });
    const seen: BetEmittedEvent[] = [];
    const second = createActor(answering, { snapshot: saved, input });
    second.on('*', (e) => seen.push(e));
    second.start();
    await settle();
    expect(second.getSnapshot().value).toBe('payout_done');
    expect(closes).toBe(2);
    expect(seen).toEqual([{ type: 'bet_closed', id: '3', bettor: input.bettor, exitPrice: 15_000_000_001, status: 1, statusName: 'payout_done' }]);
  });

  it('a restored final snapshot emits nothing', async () => {
    const done = machineWith({ kind: 'refund_at_entry' }, async () => ({ kind: 'closed', status: 3, signature: 's' }));
    const first = createActor(done, { input }).start();
    const firstSeen: BetEmittedEvent[] = [];
    first.on('*', (e) => firstSeen.push(e));
    first.send({ type: 'TICK', now: input.expireTime * 1000 });
    await settle();
    expect(first.getSnapshot().value).toBe('refunded');
    expect(firstSeen).toEqual([{ type: 'bet_closed', id: '3', bettor: input.bettor, exitPrice: 15_000_000_000, status: 3, statusName: 'refunded' }]);
    const saved = JSON.parse(JSON.stringify(first.getPersistedSnapshot())) as ReturnType<typeof first.getPersistedSnapshot>;

    const seen: BetEmittedEvent[] = [];
    const again = createActor(done, { snapshot: saved, input });
    again.on('*', (e) => seen.push(e));
    again.start();
    await settle();
    expect(again.getSnapshot().status).toBe('done');
    expect(seen).toEqual([]);
  });

  it('Profile B does not replay a 300 s refund at entry price', async () => {
    const m = machineWith({ kind: 'refund_at_entry' }, async () => ({ kind: 'closed', status: 3, signature: 's' }));
    const actor = createActor(m, { input: { ...input, replayTies: true, maxReplays: 10 } });
    const seen: BetEmittedEvent[] = [];
    actor.on('*', (e) => seen.push(e));
    actor.start();
    actor.send({ type: 'TICK', now: input.expireTime * 1000 });
    await settle();
    expect(actor.getSnapshot().value).toBe('refunded');
    expect(actor.getSnapshot().context.refundAtEntry).toBe(true);
    expect(seen.map((e) => e.type)).toEqual(['bet_open', 'bet_closed']);
  });
});
