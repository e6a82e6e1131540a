/**
 * Model-based test of the bet series: every maximal simple path of the machine (Profile A and
 * Profile B, tie replays up to the cap, failures and retries, restarts while a retry waits)
 * is generated with @xstate/graph and lived through by the real runtime (`LiveBets` on the
 * in-memory snapshot store). After every step the test checks what the outside world sees:
 * emitted events (exact fields, in order), effect calls made, the persisted snapshot, and the
 * bet history records committed with it.
 */
import { getSimplePaths, type StatePath } from '@xstate/graph';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import type { AnyMachineSnapshot, EventObject } from 'xstate';
import type { RetryPolicy } from '../../kernel/backoff.ts';
import { betMachine } from '../../machines/bet.ts';
import { BetEmittedEvent } from '../../machines/bet-events.ts';
import type { BetContext, BetInput } from '../../machines/bet-types.ts';
import { BetHarness } from './support/bet-harness.ts';
import { BetOracle, worldEvents } from './support/bet-model.ts';

const RETRY: RetryPolicy = { baseMs: 100, maxMs: 150 };
const BETTOR = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const EFFECT_STATES = ['pricing', 'closing', 'replacing'];

type Path = StatePath<AnyMachineSnapshot, EventObject>;

function scenario(input: Required<BetInput>, maxFailures: number): Path[] {
  const paths = getSimplePaths(betMachine, {
    input,
    events: (snap: AnyMachineSnapshot) => worldEvents(snap, maxFailures),
  } as Parameters<typeof getSimplePaths>[1]) as unknown as Path[];
  // a path that is a prefix of a longer one is checked step by step inside the longer one
  const keys = paths.map((p) => p.steps.map((s) => JSON.stringify(s.event)).join('\n'));
  return paths.filter((_, i) => !keys.some((other, j) => j !== i && other.startsWith(`${keys[i]}\n`)));
}

const describePath = (path: Path): string =>
  path.steps
    .slice(1)
    .map((s) => {
      const e = s.event as EventObject & { output?: { kind?: string; status?: number; value?: string }; now?: number };
      const short = e.type
        .replace('xstate.done.actor.', '')
        .replace('xstate.error.actor.', 'fail:')
        .replace(/^xstate\.after\..*\.(\w+)$/, 'timer:$1');
      return e.output ? `${short}=${e.output.kind}${e.output.status ?? ''}` : short;
    })
    .join(' > ');

/**
 * The history as the published events say it must be: a record for every bet announced, closed
 * ones with the event's status and exit price, a tied bet closed by its replacement's placement.
 */
function expectHistory(h: BetHarness, model: AnyMachineSnapshot, input: Required<BetInput>, where: string): void {
  const records = new Map(h.history.all().map((r) => [r.id, r]));
  const announced = new Set<string>();
  for (const e of h.published) {
    if (e.type === 'bet_open' || e.type === 'bet_replay') {
      announced.add(e.id);
      expect(records.get(e.id), where).toMatchObject({
        bettor: e.bettor,
        side: e.side,
        amountUnits: e.amountUnits,
        entryPrice: e.entryPrice,
        expireTime: e.expireTime,
        prevId: e.type === 'bet_replay' ? e.prevId : null,
      });
    }
    if (e.type === 'bet_replay') {
      const replacement = records.get(e.id);
      expect(records.get(e.prevId), where).toMatchObject({
        status: 3,
        exitPrice: records.get(e.prevId)?.entryPrice,
        nextId: e.id,
        closeTx: replacement?.placeTx,
        netUnits: '0',
      });
    }
    if (e.type === 'bet_closed') expect(records.get(e.id), where).toMatchObject({ status: e.status, exitPrice: e.exitPrice });
  }
  expect([...records.keys()].sort(), where).toEqual([...announced].sort());
  const context = model.context as BetContext;
  if (announced.has(input.id) && context.replayCount === 0) expect(records.get(input.id)?.placeTx, where).toBe(input.placeTx);
  const current = records.get(context.id);
  if (model.status === 'done') expect(current, where).toMatchObject({ closeTx: context.closeSignature, placeTx: context.placeTx });
  else if (current) expect(current, where).toMatchObject({ status: 0, exitPrice: 0, closeTx: null });
}

async function livePath(path: Path, input: Required<BetInput>): Promise<void> {
  const h = new BetHarness(RETRY);
  const oracle = new BetOracle(input);
  await h.start(input);
  for (const [i, step] of path.steps.entries()) {
    if (i > 0) {
      const delay = Math.min(RETRY.baseMs * 2 ** (oracle.failuresInARow - 1), RETRY.maxMs);
      oracle.apply(step.event);
      await h.step(step.event, delay);
    }
    const model = step.state;
    const where = `after step ${i} (${step.event.type}) in ${JSON.stringify(model.value)}`;
    expect(h.published, where).toEqual(oracle.events);
    for (const event of h.published) expect(v.safeParse(BetEmittedEvent, event).success, where).toBe(true);
    expect(h.fx.calls, where).toEqual(oracle.calls);
    expectHistory(h, step.state, input, where);
    const stored = await h.store.load(input.id);
    if (model.status === 'done') {
      expect(h.runtime.seriesIds(), where).not.toContain(input.id);
      expect(await h.store.isLive(input.id), where).toBe(false);
      expect(stored, where).toMatchObject({ status: 'done', value: model.value, context: model.context });
      expect(h.fx.pendingCount(), where).toBe(0);
    } else {
      const live = await h.runtime.snapshotOf(input.id);
      expect(live?.value, where).toEqual(model.value);
      expect(live?.context, where).toEqual(model.context);
      expect(stored, where).toEqual(await h.runtime.persistedSnapshotOf(input.id));
      expect(await h.store.isLive(input.id), where).toBe(true);
      const invoking = typeof model.value === 'object' && EFFECT_STATES.includes(String(Object.values(model.value)[0]));
      expect(h.fx.pendingCount(), where).toBe(invoking ? 1 : 0);
    }
  }
}

const base = {
  id: '41',
  seq: '0',
  bettor: BETTOR,
  amountUnits: '100000000',
  entryPrice: '15000000000',
  expireTime: 1_800_000_000,
  placeTx: 'place-1',
};

const scenarios: Array<{ name: string; input: Required<BetInput>; maxFailures: number }> = [
  { name: 'Profile A, UP, up to 2 failures in a row', input: { ...base, side: 'UP', replayTies: false, maxReplays: 10 }, maxFailures: 2 },
  { name: 'Profile A, DOWN', input: { ...base, side: 'DOWN', replayTies: false, maxReplays: 10 }, maxFailures: 0 },
  { name: 'Profile B, DOWN, GW_MAX_REPLAYS=3', input: { ...base, side: 'DOWN', replayTies: true, maxReplays: 3 }, maxFailures: 0 },
  { name: 'Profile B, UP, GW_MAX_REPLAYS=1, 1 failure in a row', input: { ...base, side: 'UP', replayTies: true, maxReplays: 1 }, maxFailures: 1 },
];

for (const { name, input, maxFailures } of scenarios) {
  describe(`bet series model: ${name}`, () => {
    const paths = scenario(input, maxFailures);

    it('reaches every final state the spec allows', () => {
      const finals = new Set(paths.filter((p) => p.state.status === 'done').map((p) => String(p.state.value)));
      expect([...finals].sort()).toEqual(['house_won', 'payout_done', 'refunded']);
      if (input.replayTies) {
        const maxReplay = Math.max(...paths.map((p) => (p.state.context as { replayCount: number }).replayCount));
        expect(maxReplay).toBe(input.maxReplays);
      }
    });

    it.each(paths.map((p) => [describePath(p), p] as const))('%s', async (_, path) => {
      await livePath(path, input);
    });
  });
}
