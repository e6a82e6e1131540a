/**
 * Steps a pure machine through its transitions without an actor per run: the machine's own
 * `getInitialSnapshot` / `transition` (its ActorLogic), with one inert actor scope made once per
 * machine, and the snapshot persisted as `getPersistedSnapshot` writes it. For short-lived runs driven by events from the caller (an
 * exchange order lives for one request), where creating, starting and stopping an actor costs
 * more than the work it models. Only machines without effects can be stepped: a custom action,
 * an invoked or spawned actor or a delayed event throws, because nothing here would run it.
 *
 * @example
 *   const order = stepper(orderMachine);
 *   let s = order.start(request);
 *   s = order.send(s, { type: 'PRICED', bookTs });
 *   order.persist(s); // what createActor(orderMachine, { snapshot }) restores
 */
import { createActor, type ActorScope, type AnyStateMachine, type AnyStateNode, type EventFromLogic, type InputFrom, type SnapshotFrom } from 'xstate';

/** Runs of one machine, one snapshot after another. */
export interface Stepper<M extends AnyStateMachine> {
  /** The initial snapshot for `input`. */
  start(input: InputFrom<M>): SnapshotFrom<M>;
  /** The snapshot after `event`. */
  send(snapshot: SnapshotFrom<M>, event: EventFromLogic<M>): SnapshotFrom<M>;
  /** The snapshot as an actor persists it (JSON-safe; restores with `createActor(machine, { snapshot })`). */
  persist(snapshot: SnapshotFrom<M>): unknown;
}

const effectful = (what: string) => () => {
  throw new Error(`a stepped machine must be pure: it tried to ${what}; run it as an actor instead`);
};

/** Whether a history state is anywhere under `node` (its snapshots then carry a history value). */
const hasHistory = (node: AnyStateNode): boolean => node.type === 'history' || Object.values(node.states).some(hasHistory);

/** The fields of a machine snapshot that xstate persists besides its context and children. */
interface SnapshotFields {
  status: string;
  output: unknown;
  error: unknown;
  value: unknown;
  context: unknown;
}

/**
 * What `getPersistedSnapshot` makes of a snapshot without children or history, field for field and
 * in its order, without its generic copy (a stepped snapshot has no children: `checked`; its
 * context is plain data, with no actor reference to replace). `stepper.test.ts` holds it to
 * xstate's own.
 */
const persistFlat = (s: SnapshotFields): unknown => ({
  status: s.status,
  output: s.output,
  error: s.error,
  value: s.value,
  historyValue: {},
  context: s.context,
  children: {},
});

/** A stepper for `machine` (which must have no effects). */
export function stepper<M extends AnyStateMachine>(machine: M): Stepper<M> {
  let scope: ActorScope<SnapshotFrom<M>, EventFromLogic<M>> | undefined;
  const flat = !hasHistory(machine.root);
  const scopeOf = () => {
    if (!scope) {
      // never started: it only lends `self` and `system` to the transitions
      const self = createActor(machine);
      scope = {
        self,
        id: '',
        sessionId: '',
        system: self.system,
        logger: () => undefined,
        defer: effectful('start or stop an actor, or send an event later'),
        emit: effectful('emit an event'),
        stopChild: effectful('stop a child actor'),
        actionExecutor: (action) => effectful(`run the action ${action.type}`)(),
      } as ActorScope<SnapshotFrom<M>, EventFromLogic<M>>;
    }
    return scope;
  };
  const checked = (snapshot: SnapshotFrom<M>): SnapshotFrom<M> => {
    const s = snapshot as { status: string; error: unknown; children: object };
    // xstate turns an error thrown while entering a state (here: starting an invoked actor) into an error snapshot
    if (s.status === 'error') throw s.error;
    if (Object.keys(s.children).length > 0) effectful('invoke or spawn an actor')();
    return snapshot;
  };
  return {
    start: (input) => checked(machine.getInitialSnapshot(scopeOf(), input) as SnapshotFrom<M>),
    send: (snapshot, event) => checked(machine.transition(snapshot, event, scopeOf()) as SnapshotFrom<M>),
    persist: flat ? (snapshot) => persistFlat(snapshot as SnapshotFields) : (snapshot) => machine.getPersistedSnapshot(snapshot),
  };
}
