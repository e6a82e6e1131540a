/**
 * The seq bookkeeping of one logical client across its reconnects (docs/gateway-api.md#resume):
 * a duplicate is a seq at or below the last one seen, a gap a seq above last + 1. Only numbers are
 * kept, never the events.
 *
 * Where the stream itself says no continuity is owed, the next seq only sets the baseline:
 * - a fresh connect (no `since`): the first event, and after it a second one when the first was a
 *   `price` (the gateway's current price right after connecting can be older than later events the
 *   client never asked for);
 * - a resume with `recovered: false`: the client reloads, what follows is a new baseline.
 * After a resume with `recovered: true` the next event must be `since + 1`, except one `price` at or
 * below `since` right after the resume message: the gateway's current price, counted as a snapshot.
 *
 * @example
 *   const seqs = new SeqTrack();
 *   seqs.connected(null);
 *   seqs.seen(7, true); seqs.seen(8, false); seqs.seen(8, false); // duplicates === 1
 */

// what the next seq means
const JUDGED = 0;
const FIRST = 1; // sets the baseline, unjudged
const AFTER_FIRST_PRICE = 2; // a duplicate still counts, a gap does not
const AFTER_RESUME = 3; // one price at or below the baseline is the snapshot

/** Duplicates and gaps of one logical client. */
export class SeqTrack {
  /** the last seq seen (-1 before any baseline) */
  last = -1;
  duplicates = 0;
  gaps = 0;
  /** seqs skipped over by the gaps */
  missing = 0;
  /** current prices at or below `since` sent right after a resume message */
  snapshots = 0;
  private phase = FIRST;

  /** A connection opened with `since` (events after it are owed), or fresh (null). */
  connected(since: number | null): void {
    if (since !== null) {
      this.last = since;
      this.phase = JUDGED;
    } else {
      this.last = -1;
      this.phase = FIRST;
    }
  }

  /** The resume message arrived for a connect made with `since`. */
  resumed(recovered: boolean, since: number): void {
    if (recovered) {
      this.last = since;
      this.phase = AFTER_RESUME;
    } else {
      this.last = -1;
      this.phase = FIRST;
    }
  }

  /** An event with `seq` arrived; `isPrice` for a `price` event. */
  seen(seq: number, isPrice: boolean): void {
    const phase = this.phase;
    this.phase = JUDGED;
    if (phase === FIRST) {
      this.last = seq;
      if (isPrice) this.phase = AFTER_FIRST_PRICE;
      return;
    }
    if (seq <= this.last) {
      if (phase === AFTER_RESUME && isPrice) this.snapshots++;
      else this.duplicates++;
      return;
    }
    if (seq > this.last + 1 && phase !== AFTER_FIRST_PRICE) {
      this.gaps++;
      this.missing += seq - this.last - 1;
    }
    this.last = seq;
  }
}
