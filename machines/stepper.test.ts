import { describe, expect, it } from 'vitest';
import { assign, createActor, fromPromise, setup, type AnyStateMachine } from 'xstate';
import { stepper } from './stepper.ts';

const counter = setup({
  types: { context: {} as { n: number }, events: {} as { type: 'ADD'; by: number } | { type: 'STOP' }, input: {} as { from: number } },
}).createMachine({
  initial: 'counting',
  context: ({ input }) => ({ n: input.from }),
  states: {
    counting: { on: { ADD: { actions: assign({ n: ({ context, event }) => context.n + event.by }) }, STOP: 'stopped' } },
    stopped: { type: 'final' },
  },
});

describe('stepper', () => {
  it('steps a pure machine as an actor would, and its persisted snapshot restores in an actor', () => {
    const steps = stepper(counter);
    let s = steps.start({ from: 2 });
    s = steps.send(s, { type: 'ADD', by: 3 });
    const before = s;
    s = steps.send(s, { type: 'STOP' });
    expect(before.context.n).toBe(5);
    expect(before.value).toBe('counting');
    expect(s.status).toBe('done');
    const restored = createActor(counter, { snapshot: steps.persist(s) as never, input: { from: 0 } }).start();
    expect(restored.getSnapshot().context.n).toBe(5);
    expect(restored.getSnapshot().value).toBe('stopped');
  });

  it('persists as xstate does, also a machine with history (which it leaves to xstate)', () => {
    const remembering = setup({ types: { context: {} as { n: number } } }).createMachine({
      initial: 'on',
      context: { n: 1 },
      states: {
        on: { initial: 'a', states: { a: { on: { NEXT: 'b' } }, b: {}, back: { type: 'history' } }, on: { OFF: 'off' } },
        off: { on: { ON: 'on.back' } },
      },
    });
    for (const [machine, events, input] of [
      [counter, [{ type: 'ADD', by: 3 }, { type: 'STOP' }], { from: 2 }],
      [remembering, [{ type: 'NEXT' }, { type: 'OFF' }, { type: 'ON' }], undefined],
    ] as const) {
      const steps = stepper(machine as AnyStateMachine);
      const actor = createActor(machine as AnyStateMachine, { input }).start();
      let s = steps.start(input);
      for (const e of events) {
        s = steps.send(s, e);
        actor.send(e);
        expect(JSON.stringify(steps.persist(s))).toBe(JSON.stringify(actor.getPersistedSnapshot()));
      }
    }
  });

  it('keeps runs apart: one scope serves interleaved runs', () => {
    const steps = stepper(counter);
    const a = steps.send(steps.start({ from: 0 }), { type: 'ADD', by: 1 });
    const b = steps.send(steps.start({ from: 10 }), { type: 'ADD', by: 5 });
    expect([steps.send(a, { type: 'ADD', by: 1 }).context.n, b.context.n]).toEqual([2, 15]);
  });

  it('refuses a machine with effects: a custom action, an invoked actor', () => {
    const acting = setup({ actions: { ring: () => undefined } }).createMachine({ initial: 'a', states: { a: { on: { GO: { actions: 'ring' } } } } });
    const steps = stepper(acting);
    expect(() => steps.send(steps.start(undefined as never), { type: 'GO' })).toThrow(/must be pure.*ring/);
    const invoking = setup({ actors: { work: fromPromise(async () => 1) } }).createMachine({ initial: 'a', states: { a: { invoke: { src: 'work' } } } });
    expect(() => stepper(invoking).start(undefined as never)).toThrow(/must be pure/);
  });
});
