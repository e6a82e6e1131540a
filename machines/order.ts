/**
 * A market order as an XState v5 machine: received -> priced -> filled / partiallyFilled /
 * replayed / rejected / failed (docs/exchange-api.md#orders; docs/architecture.md#the-exchange-order-machine). Pure: the runtime reads the book and
 * executes against the store, and reports each outcome as an event (PRICED, EXECUTED, ...), so
 * the machine does no I/O and can be model-tested. It is stepped by `machines/stepper.ts`
 * rather than run as an actor per order: an order lives for one request, and an actor's set-up
 * cost more than the rest of the order's work (bench: `npm run bench -- exchange`).
 * A repeated Idempotency-Key found at execution ends in `replayed` with the first answer.
 */
import { stepper } from './stepper.ts';
import type { Refusal as KernelRefusal } from '../kernel/refusal.ts';
import { assign, setup, type SnapshotFrom } from 'xstate';
import type { BookSymbol } from '../kernel/domain.ts';

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
}

/** Business refusals are values, not exceptions (docs/architecture.md#refusals). */
export type RefusalCode = 'PRICE_UNAVAILABLE' | 'INSUFFICIENT_FUNDS' | 'INSUFFICIENT_POSITION' | 'ACCOUNT_NOT_FOUND' | 'IDEMPOTENCY_KEY_REUSED';
/** A refusal: the error code and a readable reason (`kernel/refusal.ts`). */
export type Refusal = KernelRefusal<RefusalCode>;

/** Outcome of execution. `result` is the wire body of the order result (docs/exchange-api.md#place). */
export type Execution =
  | { kind: 'executed'; status: 'FILLED' | 'PARTIALLY_FILLED'; result: Record<string, string> }
  | { kind: 'replayed'; httpStatus: number; result: Record<string, string> }
  | { kind: 'refused'; refusal: Refusal };

/** What the runtime reports to an order. */
export type OrderEvent =
  /** a book no older than the cut-off was found; `bookTs` is its time (the book itself stays with the runtime) */
  | { type: 'PRICED'; bookTs: number }
  /** no fresh book: refused before execution */
  | { type: 'UNPRICED'; refusal: Refusal }
  | { type: 'EXECUTED'; execution: Execution }
  /** an effect failed; `unavailable` names the dependency when an outage was the cause */
  | { type: 'FAILED'; failure: string; unavailable: string | null };

/** What the order knows; saved with the trade's commit. */
export interface OrderContext {
  request: OrderRequest;
  /** time of the book that priced the order (null: not priced) */
  bookTs: number | null;
  execution: Execution | null;
  refusal: Refusal | null;
  failure: string | null;
  /** the dependency (e.g. `redis`) whose outage failed the order, when that was the cause */
  unavailable: string | null;
}

/** The order machine. */
export const orderMachine = setup({
  types: {
    context: {} as OrderContext,
    input: {} as OrderRequest,
    events: {} as OrderEvent,
  },
  actions: {
    recordFailure: assign(({ event }) => (event.type === 'FAILED' ? { failure: event.failure, unavailable: event.unavailable } : {})),
  },
}).createMachine({
  id: 'order',
  initial: 'received',
  context: ({ input }) => ({ request: input, bookTs: null, execution: null, refusal: null, failure: null, unavailable: null }),
  states: {
    received: {
      on: {
        PRICED: { target: 'priced', actions: assign({ bookTs: ({ event }) => event.bookTs }) },
        UNPRICED: { target: 'rejected', actions: assign({ refusal: ({ event }) => event.refusal }) },
        FAILED: { target: 'failed', actions: 'recordFailure' },
      },
    },
    priced: {
      on: {
        EXECUTED: [
          {
            guard: ({ event }) => event.execution.kind === 'executed' && event.execution.status === 'FILLED',
            target: 'filled',
            actions: assign({ execution: ({ event }) => event.execution }),
          },
          {
            guard: ({ event }) => event.execution.kind === 'executed',
            target: 'partiallyFilled',
            actions: assign({ execution: ({ event }) => event.execution }),
          },
          { guard: ({ event }) => event.execution.kind === 'replayed', target: 'replayed', actions: assign({ execution: ({ event }) => event.execution }) },
          { target: 'rejected', actions: assign({ refusal: ({ event }) => (event.execution.kind === 'refused' ? event.execution.refusal : null) }) },
        ],
        FAILED: { target: 'failed', actions: 'recordFailure' },
      },
    },
    filled: { type: 'final' },
    partiallyFilled: { type: 'final' },
    replayed: { type: 'final' },
    rejected: { type: 'final' },
    failed: { type: 'final' },
  },
});

/** A snapshot of an order's run. */
export type OrderSnapshot = SnapshotFrom<typeof orderMachine>;

/** An order's run stepped without an actor (`stepper.ts`): an order lives for one request. */
export const orderSteps = stepper(orderMachine);

/** The state a priced order ends in once executed (pure): what the trade's commit saves with it. */
export const executedOrder = (priced: OrderSnapshot, execution: Execution): OrderSnapshot => orderSteps.send(priced, { type: 'EXECUTED', execution });
