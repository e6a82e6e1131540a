import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, SimulatedClock } from 'xstate';
import { clockMachine, type TickEvent } from './clock.ts';

describe('settlement clock', () => {
  it('sends TICK with the current time every interval, on a simulated clock', () => {
    const clock = new SimulatedClock();
    clock.set(1_000_000);
    const ticks: number[] = [];
    const target = createActor(fromCallback<TickEvent>(({ receive }) => receive((e) => ticks.push(e.now)))).start();
    const actor = createActor(clockMachine, { clock, input: { intervalMs: 2000, target, now: () => clock.now() } }).start();
    clock.increment(1999);
    expect(ticks).toEqual([]);
    clock.increment(1);
    expect(ticks).toEqual([1_002_000]);
    clock.increment(2000); // a SimulatedClock jump fires each timer once, so step one period at a time
    clock.increment(2000);
    expect(ticks).toEqual([1_002_000, 1_004_000, 1_006_000]);
    actor.stop();
    clock.increment(10_000);
    expect(ticks).toHaveLength(3);
  });
});
