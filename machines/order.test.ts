/**
 * Model test of the order machine: @xstate/graph enumerates every simple path through the
 * machine driven by the events the runtime reports; each path is then replayed twice, on a real
 * actor and on the stepper the runtime uses, and both must end in the path's state and context.
 */
import { refuse } from '../kernel/refusal.ts';
import { getSimplePaths } from '@xstate/graph';
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { orderMachine, type Execution, type OrderEvent, type OrderRequest } from './order.ts';
import { stepper } from './stepper.ts';

const request: OrderRequest = { orderId: 'o-1', accountId: 'a-1', symbol: 'SOLUSDT', side: 'BUY', qty: '1', idempotencyKey: null, fingerprint: 'f' };
const result = { orderId: 'o-1', status: 'FILLED' };

const executions: Execution[] = [
  { kind: 'executed', status: 'FILLED', result },
  { kind: 'executed', status: 'PARTIALLY_FILLED', result: { ...result, status: 'PARTIALLY_FILLED' } },
  { kind: 'replayed', httpStatus: 201, result },
  { kind: 'refused', refusal: refuse('INSUFFICIENT_FUNDS', 'short') },
];
const failedEvent: OrderEvent = { type: 'FAILED', failure: 'RedisUnavailable: down', unavailable: 'redis' };

const eventsFor = (value: unknown): OrderEvent[] => {
  if (value === 'received') return [{ type: 'PRICED', bookTs: 1 }, { type: 'UNPRICED', refusal: refuse('PRICE_UNAVAILABLE', 'stale') }, failedEvent];
  if (value === 'priced') return [...executions.map((execution) => ({ type: 'EXECUTED' as const, execution })), failedEvent];
  return [];
};

const describeEvent = (e: OrderEvent): string =>
  e.type === 'EXECUTED' ? `EXECUTED(${e.execution.kind}${e.execution.kind === 'executed' ? ` ${e.execution.status}` : ''})` : e.type;

const paths = getSimplePaths(orderMachine, { input: request, events: (snapshot) => eventsFor(snapshot.value) });
const ended = paths.filter((p) => p.state.status === 'done');
const events = (path: (typeof paths)[number]) => path.steps.map((s) => s.event as OrderEvent).filter((e) => !e.type.startsWith('xstate.'));

describe('order machine model', () => {
  it('reaches every outcome state', () => {
    const ends = new Set(paths.map((p) => String(p.state.value)));
    expect(ends).toEqual(new Set(['received', 'priced', 'filled', 'partiallyFilled', 'replayed', 'rejected', 'failed']));
    expect(ended.length).toBe(7);
  });

  it.each(ended.map((p) => [events(p).map(describeEvent).join(' > '), p] as const))('a real actor follows the path %s', (_name, path) => {
    const actor = createActor(orderMachine, { input: request });
    const seen: string[] = [];
    actor.subscribe((s) => seen.push(String(s.value)));
    actor.start();
    for (const e of events(path)) actor.send(e);
    const end = actor.getSnapshot();
    expect(end.status).toBe('done');
    expect(end.value).toBe(path.state.value);
    expect(end.context).toEqual(path.state.context);
    expect(seen[0]).toBe('received');
    // persisted snapshots restore to the same state
    const restored = createActor(orderMachine, { snapshot: actor.getPersistedSnapshot(), input: request }).start();
    expect(restored.getSnapshot().value).toBe(end.value);
  });

  it.each(ended.map((p) => [events(p).map(describeEvent).join(' > '), p] as const))('the stepper follows the path %s as the actor does', (_name, path) => {
    const actor = createActor(orderMachine, { input: request }).start();
    const steps = stepper(orderMachine);
    let snap = steps.start(request);
    for (const e of events(path)) {
      actor.send(e);
      snap = steps.send(snap, e);
      expect(snap.value).toEqual(actor.getSnapshot().value);
      // the text the order's commit stores, byte for byte (field order included)
      expect(JSON.stringify(steps.persist(snap))).toBe(JSON.stringify(actor.getPersistedSnapshot()));
    }
    expect(snap.status).toBe('done');
    expect(snap.context).toEqual(actor.getSnapshot().context);
    expect(steps.persist(snap)).toEqual(actor.getPersistedSnapshot());
  });

  it('ignores an event its state does not take (a late PRICED after the end changes nothing)', () => {
    const steps = stepper(orderMachine);
    const rejected = steps.send(steps.start(request), { type: 'UNPRICED', refusal: refuse('PRICE_UNAVAILABLE', 'stale') });
    const after = steps.send(rejected, { type: 'PRICED', bookTs: 2 });
    expect(after.value).toBe('rejected');
    expect(after.context.bookTs).toBeNull();
  });
});
