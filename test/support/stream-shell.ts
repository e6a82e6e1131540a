/**
 * The gateway's HTTP and WebSocket shell on a port of its own, over a given event log, for tests of
 * the event stream over real sockets (docs/gateway-api.md#resume): one shell at a time, closed after
 * each test.
 *
 * @example
 *   const shells = streamShells();
 *   afterEach(() => shells.close());
 *   const { events, url } = await shells.start(log, { resumeRingEvents: 100 });
 */
import { pino } from 'pino';
import type { EventLog } from '../../adapters/store/event-log/port.ts';
import { createGatewayShell, type GatewayShell } from '../../server/gateway/shell.ts';

/** A price event as the stream carries it. */
export type TestEvent = { type: 'price'; symbol: 'solusdt'; price: string; ts: number };

/** The `n`th test price. */
export const price = (n: number): TestEvent => ({ type: 'price', symbol: 'solusdt', price: `${100 + n}.00000000`, ts: 1_763_700_000_000 + n });
/** The seqs of `messages`, in order. */
export const seqsOf = (messages: Array<Record<string, unknown>>) => messages.map((m) => m.seq as number);
/** `from` to `to`, both included. */
export const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

type StreamOptions = Parameters<typeof createGatewayShell<TestEvent>>[0]['stream'];

/** Starts shells one at a time; `close` closes the running one. */
export function streamShells() {
  const logger = pino({ level: 'silent' });
  let shell: GatewayShell<TestEvent> | undefined;
  return {
    async start(log: EventLog<TestEvent>, stream: StreamOptions) {
      shell = createGatewayShell<TestEvent>({ eventLog: log, logger, stream });
      await shell.events.start();
      const port = await shell.listen(0, '127.0.0.1');
      return { events: shell.events, url: `ws://127.0.0.1:${port}/api/ws` };
    },
    async close() {
      await shell?.close();
      shell = undefined;
    },
  };
}
