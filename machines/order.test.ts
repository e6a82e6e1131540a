/**
 * Model test of the order machine: @xstate/graph enumerates every simple path through the
 * machine driven by the possible effect outcomes; each path is then replayed on a real actor
 * whose injected effects give the same outcomes, and must end in the same state with the
 * matching refusal or execution.
 */
import { getSimplePaths } from '@xstate/graph';
import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, toPromise, type EventObject } from 'xstate';
import type { BookSnapshot } from '../adapters/feed/port.ts';
import { orderMachine, type Execution, type OrderRequest, type Pricing } from './order.ts';

const request: OrderRequest = { orderId: 'o-1', accountId: 'a-1', symbol: 'SOLUSDT', side: 'BUY', qty: '1', idempotencyKey: null, fingerprint: 'f', dedupeKey: 'order:o-1' };
const book: BookSnapshot = { symbol: 'SOLUSDT', bids: [['149', '1']], asks: [['150', '1']], ts: 1 };
const result = { orderId: 'o-1', status: 'FILLED' };

const pricings: Pricing[] = [{ ok: true, book }, { ok: false, refusal: { code: 'PRICE_UNAVAILABLE', message: 'stale' } }];
const executions: Execution[] = [
  { kind: 'executed', status: 'FILLED', result },
  { kind: 'executed', status: 'PARTIALLY_FILLED', result: { ...result, status: 'PARTIALLY_FILLED' } },
  { kind: 'replayed', httpStatus: 201, result },
  { kind: 'refused', refusal: { code: 'INSUFFICIENT_FUNDS', message: 'short' } },
];

type Step = { type: string; output?: unknown; error?: unknown };
const eventsFor = (value: unknown): Step[] => {
  if (value === 'received') return [...pricings.map((output) => ({ type: 'xstate.done.actor.pricing', output })), { type: 'xstate.error.actor.pricing', error: new Error('boom') }];
  if (value === 'priced') return [...executions.map((output) => ({ type: 'xstate.done.actor.execution', output })), { type: 'xstate.error.actor.execution', error: new Error('boom') }];
  return [];
};

const describeStep = (e: Step): string => {
  const o = e.output as { ok?: boolean; kind?: string; status?: string } | undefined;
  const what = o === undefined ? '' : o.kind ? `(${o.kind}${o.status ? ` ${o.status}` : ''})` : `(ok=${String(o.ok)})`;
  return `${e.type.replace('xstate.', '')}${what}`;
};

const paths = getSimplePaths(orderMachine, {
  input: request,
  events: (snapshot) => eventsFor(snapshot.value) as unknown as EventObject[] as never,
});

describe('order machine model', () => {
  it('reaches every outcome state', () => {
    const ends = new Set(paths.map((p) => String(p.state.value)));
    expect(ends).toEqual(new Set(['received', 'priced', 'filled', 'partiallyFilled', 'replayed', 'rejected', 'failed']));
  });

  it.each(paths.filter((p) => p.state.status === 'done').map((p) => [p.steps.map((s) => describeStep(s.event as unknown as Step)).join(' > '), p] as const))(
    'a real actor follows the path %s',
    async (_name, path) => {
      const steps = path.steps.map((s) => s.event as unknown as Step).filter((e) => e.type.startsWith('xstate.'));
      const outcome = (id: string) => {
        const step = steps.find((s) => s.type.endsWith(`.${id}`));
        if (!step) throw new Error(`path has no ${id} step`);
        return step.type.startsWith('xstate.error') ? Promise.reject(step.error) : Promise.resolve(step.output);
      };
      const actor = createActor(
        orderMachine.provide({
          actors: {
            priceOrder: fromPromise(() => outcome('pricing') as Promise<Pricing>),
            executeOrder: fromPromise(() => outcome('execution') as Promise<Execution>),
          },
        }),
        { input: request },
      );
      const seen: string[] = [];
      actor.subscribe((s) => seen.push(String(s.value)));
      actor.start();
      await toPromise(actor);
      const end = actor.getSnapshot();
      expect(end.value).toBe(path.state.value);
      expect(end.context).toEqual(path.state.context);
      // persisted snapshots restore to the same state
      const restored = createActor(orderMachine, { snapshot: actor.getPersistedSnapshot(), input: request }).start();
      expect(restored.getSnapshot().value).toBe(end.value);
      expect(seen[0]).toBe('received');
    },
  );
});
