/** A `publish` for the bet runtime that records each committed event without its seq (tests compare the wire fields of docs/gateway-api.md#events). */
import type { Sequenced } from '../../adapters/store/event-log/port.ts';
import type { BetEmittedEvent } from '../../machines/bet-events.ts';

export function recordInto(into: BetEmittedEvent[]): (events: Array<Sequenced<BetEmittedEvent>>) => void {
  return (events) => {
    for (const { seq: _seq, ...event } of events) into.push(event as BetEmittedEvent);
  };
}
