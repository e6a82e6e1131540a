/**
 * Model test of the engine order machine: @xstate/graph enumerates every simple path driven by
 * the events the engine reports (fills of part or all of the order, cancel, expire); each path is
 * replayed on a real actor and on the stepper the engine uses, and the record must add up.
 */
import { getSimplePaths } from '@xstate/graph';
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { dec } from './exchange/money.ts';
import { engineOrderMachine, engineOrderSteps, isOpen, restoreEngineOrder, statusOf, type EngineOrderEvent, type EngineOrderInput } from './engine-order.ts';

const input: EngineOrderInput = {
  orderId: 'o-1',
  accountId: 'a-1',
  clientOrderId: 'c-1',
  symbol: 'SOLUSDT',
  side: 'BUY',
  type: 'LIMIT',
  timeInForce: 'GTC',
  price: '100',
  origQty: '2',
  quoteOrderQty: null,
  makerRate: '0.001',
  takerRate: '0.001',
  lockAsset: 'USDT',
  locked: '200.2',
  restingQty: '2',
  createdAt: 1,
};
const fill = (qty: string, n: number): EngineOrderEvent => ({
  type: 'FILL',
  fill: {
    tradeId: `t${n}`,
    price: '100',
    qty,
    quoteQty: dec(qty).times(100).toFixed(),
    commission: dec(qty).times('0.1').toFixed(),
    liquidity: 'MAKER',
    bookTs: n,
    time: n,
  },
  release: dec(qty).times('100.1').toFixed(),
});

const eventsFor = (s: { value: unknown; context: { fills: number } }): EngineOrderEvent[] =>
  s.value === 'new' || s.value === 'partiallyFilled'
    ? [fill('1', s.context.fills + 1), fill('2', s.context.fills + 1), fill('3', s.context.fills + 1), { type: 'CANCEL', time: 9 }, { type: 'EXPIRE', time: 9 }]
    : [];

const paths = getSimplePaths(engineOrderMachine, { input, events: eventsFor });
const events = (p: (typeof paths)[number]) => p.steps.map((s) => s.event as EngineOrderEvent).filter((e) => !e.type.startsWith('xstate.'));

describe('engine order machine model', () => {
  it('reaches NEW, PARTIALLY_FILLED, FILLED, CANCELED and EXPIRED, and never more than the order', () => {
    expect(new Set(paths.map((p) => String(p.state.value)))).toEqual(new Set(['new', 'partiallyFilled', 'filled', 'canceled', 'expired']));
    for (const p of paths) expect(dec(p.state.context.executedQty).lte(input.origQty)).toBe(true);
  });

  it.each(
    paths.map(
      (p) =>
        [
          events(p)
            .map((e) => (e.type === 'FILL' ? `FILL(${e.fill.qty})` : e.type))
            .join(' -> ') || '(start)',
          p,
        ] as const,
    ),
  )('%s: actor and stepper agree, and the record adds up', (_name, path) => {
    const actor = createActor(engineOrderMachine, { input }).start();
    let stepped = engineOrderSteps.start(input);
    for (const e of events(path)) {
      actor.send(e);
      stepped = engineOrderSteps.send(stepped, e);
    }
    expect(stepped.value).toEqual(path.state.value);
    expect(actor.getSnapshot().value).toEqual(path.state.value);
    expect(stepped.context).toEqual(actor.getSnapshot().context);
    const c = stepped.context;
    const filled = events(path).filter((e) => e.type === 'FILL');
    expect(c.executedQty).toBe(filled.reduce((a, e) => a.plus(e.type === 'FILL' ? e.fill.qty : '0'), dec('0')).toFixed());
    expect(c.fills).toBe(filled.length);
    // a final order holds nothing; an open one holds what its fills did not release
    if (!isOpen(stepped)) expect(dec(c.locked).isZero()).toBe(true);
    else expect(dec(c.locked).eq(dec('200.2').minus(dec(c.executedQty).times('100.1')))).toBe(true);
    // the persisted snapshot restores to the same status and record
    const restored = restoreEngineOrder(JSON.parse(JSON.stringify(engineOrderSteps.persist(stepped))));
    expect(statusOf(restored)).toBe(statusOf(stepped));
    expect(restored.context).toEqual(c);
    expect(isOpen(restored)).toBe(isOpen(stepped));
  });

  it('ignores a fill larger than what is left', () => {
    const s = engineOrderSteps.send(engineOrderSteps.send(engineOrderSteps.start(input), fill('1.5', 1)), fill('1', 2));
    expect(statusOf(s)).toBe('PARTIALLY_FILLED');
    expect(s.context.executedQty).toBe('1.5');
  });
});
