/**
 * A market order as an XState v5 machine: received -> priced -> filled / partiallyFilled /
 * rejected (spec §3; design: "Shape"). Pure: pricing and execution are invoked actors the
 * runtime provides (`fromPromise`), so the machine does no I/O and can be model-tested.
 * A repeated Idempotency-Key found at execution ends in `replayed` with the first answer.
 */
import { assign, fromPromise, setup } from 'xstate';
import type { BookSnapshot, BookSymbol } from '../adapters/feed/port.ts';

/** What the client asked for, already validated. */
export interface OrderRequest {
  orderId: string;
  accountId: string;
  symbol: BookSymbol;
  side: 'BUY' | 'SELL';
  qty: string;
  idempotencyKey: string | null;
  /** Canonical form of the request body, compared on an idempotent repeat. */
  fingerprint: string;
  /**
   * Key of the idempotency record written with the trade: the client's Idempotency-Key, or
   * one derived from the order id, so re-running execution after a restart never trades twice.
   */
  dedupeKey: string;
}

/** Business refusals are values, not exceptions (spec §7). */
export type RefusalCode = 'PRICE_UNAVAILABLE' | 'INSUFFICIENT_FUNDS' | 'INSUFFICIENT_POSITION' | 'ACCOUNT_NOT_FOUND' | 'IDEMPOTENCY_KEY_REUSED';
/** A refusal: the spec's error code and a readable reason. */
export interface Refusal {
  code: RefusalCode;
  message: string;
}

/** Outcome of pricing: a fresh book, or a refusal. */
export type Pricing = { ok: true; book: BookSnapshot } | { ok: false; refusal: Refusal };

/** Outcome of execution. `result` is the wire body of the order result (spec §2). */
export type Execution =
  | { kind: 'executed'; status: 'FILLED' | 'PARTIALLY_FILLED'; result: Record<string, string> }
  | { kind: 'replayed'; httpStatus: number; result: Record<string, string> }
  | { kind: 'refused'; refusal: Refusal };

/** What the order actor knows; persisted with its snapshot. */
export interface OrderContext {
  request: OrderRequest;
  book: BookSnapshot | null;
  execution: Execution | null;
  refusal: Refusal | null;
  failure: string | null;
  /** the dependency (e.g. `redis`) whose outage failed the order, when that was the cause */
  unavailable: string | null;
}

/** The dependency named by an outage error (`DependencyUnavailable` carries one), else null. */
const dependencyOf = (error: unknown): string | null => {
  const dep = (error as { dependency?: unknown } | null)?.dependency;
  return typeof dep === 'string' ? dep : null;
};


const notProvided = (): Promise<never> => Promise.reject(new Error('effect not provided by the runtime'));

/** The order machine; the runtime supplies `priceOrder` and `executeOrder` with `.provide()`. */
export const orderMachine = setup({
  types: {
    context: {} as OrderContext,
    input: {} as OrderRequest,
  },
  actors: {
    priceOrder: fromPromise<Pricing, { symbol: BookSymbol }>(notProvided),
    executeOrder: fromPromise<Execution, { request: OrderRequest; book: BookSnapshot }>(notProvided),
  },
}).createMachine({
  id: 'order',
  initial: 'received',
  context: ({ input }) => ({ request: input, book: null, execution: null, refusal: null, failure: null, unavailable: null }),
  states: {
    received: {
      invoke: {
        id: 'pricing',
        src: 'priceOrder',
        input: ({ context }) => ({ symbol: context.request.symbol }),
        onDone: [
          { guard: ({ event }) => event.output.ok, target: 'priced', actions: assign({ book: ({ event }) => (event.output.ok ? event.output.book : null) }) },
          { target: 'rejected', actions: assign({ refusal: ({ event }) => (event.output.ok ? null : event.output.refusal) }) },
        ],
        onError: { target: 'failed', actions: assign(({ event }) => ({ failure: String(event.error), unavailable: dependencyOf(event.error) })) },
      },
    },
    priced: {
      invoke: {
        id: 'execution',
        src: 'executeOrder',
        input: ({ context }) => ({ request: context.request, book: context.book as BookSnapshot }),
        onDone: [
          { guard: ({ event }) => event.output.kind === 'executed' && event.output.status === 'FILLED', target: 'filled', actions: assign({ execution: ({ event }) => event.output }) },
          { guard: ({ event }) => event.output.kind === 'executed', target: 'partiallyFilled', actions: assign({ execution: ({ event }) => event.output }) },
          { guard: ({ event }) => event.output.kind === 'replayed', target: 'replayed', actions: assign({ execution: ({ event }) => event.output }) },
          { target: 'rejected', actions: assign({ refusal: ({ event }) => (event.output.kind === 'refused' ? event.output.refusal : null) }) },
        ],
        onError: { target: 'failed', actions: assign(({ event }) => ({ failure: String(event.error), unavailable: dependencyOf(event.error) })) },
      },
    },
    filled: { type: 'final' },
    partiallyFilled: { type: 'final' },
    replayed: { type: 'final' },
    rejected: { type: 'final' },
    failed: { type: 'final' },
  },
});
