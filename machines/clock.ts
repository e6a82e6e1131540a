/**
 * The settlement clock (docs/architecture.md#settlement: a scheduler every `SMART_SETTLE_INTERVAL_MS`).
 * A tiny machine whose only timer is an xstate delay, so tests drive it with a
 * `SimulatedClock` (`createActor(clockMachine, { clock, input })`) instead of waiting.
 *
 * @example
 *   createActor(clockMachine, { input: { intervalMs: 2000, target: relay, now: Date.now } }).start();
 *   // relay receives { type: 'TICK', now } every 2000 ms
 */
import { sendTo, setup, type AnyActorRef } from 'xstate';

/** What the clock needs: its period, who gets the ticks, and where wall time comes from (unix ms). */
export interface ClockInput {
  intervalMs: number;
  target: AnyActorRef;
  now: () => number;
}

/** The event the clock sends; `now` is unix milliseconds. */
export interface TickEvent {
  type: 'TICK';
  now: number;
}

/** Sends `TICK` to `target` every `intervalMs`, first one `intervalMs` after start. Not persisted. */
export const clockMachine = setup({
  types: { context: {} as ClockInput, input: {} as ClockInput },
  delays: { interval: ({ context }) => context.intervalMs },
  actions: {
    tick: sendTo(
      ({ context }) => context.target,
      ({ context }): TickEvent => ({ type: 'TICK', now: context.now() }),
    ),
  },
}).createMachine({
  id: 'settleClock',
  context: ({ input }) => input,
  initial: 'ticking',
  states: {
    ticking: { after: { interval: { target: 'ticking', reenter: true, actions: 'tick' } } },
  },
});
