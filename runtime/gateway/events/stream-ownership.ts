/**
 * What the gateway makes of the event stream's owner (docs/decisions.md#one-stream-per-chain: a
 * stream belongs to one chain): when a stream made by an older version (no owner recorded) may be
 * kept as this chain's, and what an operator is told when opening it changed its owner.
 *
 * @example
 *   const adoptUnowned = adoptsWhenRelayedFrom(stores.eventLog);
 *   reportOwnership(log, stream.ownership, { stream: 'GW_EVENTS', subjectPrefix, genesis, epoch });
 */
import { isDeepStrictEqual } from 'node:util';
import type { StreamOwner } from '../../../adapters/store/event-log/jetstream.ts';
import type { EventLog } from '../../../adapters/store/event-log/port.ts';
import type { Ownership } from '../../../adapters/store/event-log/stream-owner.ts';
import type { Logger } from '../../../kernel/log.ts';
import type { GatewayEvent } from './schemas.ts';

/**
 * Adopt a stream without a recorded owner only when its relayed history is provably this
 * outbox's: the last event it relayed is the event this outbox holds under that outbox seq (a bet
 * event carries its bettor, amount, prices and times, so another chain's store does not match),
 * or it relayed nothing at all and kept no cursor (then it holds price ticks only, which belong to
 * no chain). Adopting keeps the epoch, so a rolling upgrade of one deployment costs no client a
 * reload. Anything else (e.g. a cursor whose events have aged out of the stream) is taken for
 * another chain's: a new epoch costs a client one reload over REST, whereas resuming from a
 * cursor of another outbox would skip this chain's events without a word. Bet dedup ids of older
 * versions (`bet:<id>:<kind>`) never equal this version's, so an adopted stream cannot swallow a
 * new bet as a duplicate either.
 */
export function adoptsWhenRelayedFrom(outbox: EventLog<GatewayEvent>): StreamOwner['adoptUnowned'] {
  return async (last, keptCursor) => {
    if (last === null) return keptCursor === 0;
    if (last.outboxSeq < 1 || keptCursor > last.outboxSeq) return false;
    const [held] = await outbox.readSince(last.outboxSeq - 1, 1);
    if (held?.seq !== last.outboxSeq) return false;
    const { seq: _seq, ...fields } = held;
    return isDeepStrictEqual(fields, last.fields);
  };
}

/** Where the stream is, for the log lines. */
export interface StreamPlace {
  /** JetStream stream name */
  stream: string;
  /** GW_EVENT_STREAM */
  subjectPrefix: string;
  /** genesis hash of this gateway's chain */
  genesis: string;
  /** the stream's epoch after opening */
  epoch: string;
}

/** Logs what opening the stream found; a change of owner is a warning that says what was lost and how to keep deployments apart. */
export function reportOwnership(log: Logger, ownership: Ownership | null, at: StreamPlace): void {
  const fields = { stream: at.stream, GW_EVENT_STREAM: at.subjectPrefix, genesis: at.genesis, epoch: at.epoch };
  switch (ownership?.kind) {
    case 'switched': {
      const before =
        ownership.previous === null
          ? "an unknown chain (the stream was made by an older version, and this gateway's outbox does not confirm it as its own)"
          : `chain ${ownership.previous}`;
      log.warn(
        { ...fields, previousGenesis: ownership.previous },
        `event stream ${at.stream} (GW_EVENT_STREAM=${at.subjectPrefix}) held the events of ${before}; this gateway serves chain ${at.genesis}, so the stream was recreated as a new epoch and the other chain's events are gone from it (clients resuming from the old epoch are told recovered:false). To run two chains on one NATS, give each deployment its own GW_EVENT_STREAM.`,
      );
      return;
    }
    case 'adopted':
      log.info(fields, `event stream ${at.stream} made by an older version adopted for chain ${at.genesis}: what it relayed last is this gateway's outbox`);
      return;
    case 'created':
      log.info(fields, `event stream ${at.stream} created for chain ${at.genesis}`);
      return;
    default:
      log.info(fields, `event stream ${at.stream} belongs to chain ${at.genesis}`);
  }
}
