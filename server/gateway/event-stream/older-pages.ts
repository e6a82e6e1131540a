/**
 * Events older than the resume ring, read from the event log in fixed pages shared by every socket
 * that needs them (docs/architecture.md#resumes-from-memory): page `k` holds the seqs
 * `(k * size, (k + 1) * size]`, is read once however many sockets resume inside it (one read in
 * flight per page), and is kept for the next ones (the newest pages used, up to `maxPages`).
 *
 * A page is complete when it was read to its end: a read that stops short (a fetch cut by its time
 * limit) is continued from where it stopped; an empty read while the log is known to hold newer
 * events proves nothing and fails the page (it is read again by the next socket that asks). A read
 * that has not answered within `readTimeoutMs` fails the page too: a read hung on a server that
 * died (its answer never comes) must not hold every socket waiting on the page once the log is
 * back (docs/architecture.md#resumes-from-memory).
 *
 * @example
 *   const pages = new OlderPages({ read: (since, n) => log.readSince(since, n), size: 500, maxPages: 64 });
 *   const page = pages.held(3) ?? (await pages.load(3, lastPublished));
 */
import type { LoggedEvent, Sequenced } from '../../../adapters/store/event-log/port.ts';

/** A page of events: their seqs and JSON texts, oldest first, and the seq up to which the page proves what the log holds. */
export interface OlderPage {
  seqs: number[];
  texts: string[];
  /** the log holds no event with a seq in `(k * size, coveredTo]` that is not in this page */
  coveredTo: number;
}

/** What the pages are read from. */
export interface OlderPagesOptions<E extends LoggedEvent> {
  /** the log's events after `since`, oldest first, at most `limit` */
  read(since: number, limit: number): Promise<ReadonlyArray<Sequenced<E>>>;
  /** seqs per page */
  size: number;
  /** pages kept once read */
  maxPages: number;
  /** a read not answered within this long fails its page [10000] */
  readTimeoutMs?: number;
}

/** The page read's time limit by default, ms. */
export const PAGE_READ_TIMEOUT_MS = 10_000;

/** `p`, or a rejection once `ms` have passed without an answer. */
function answeredWithin<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** Shared, cached reads of old pages of the log. */
export class OlderPages<E extends LoggedEvent> {
  private readonly kept = new Map<number, OlderPage>();
  private readonly loading = new Map<number, Promise<OlderPage>>();
  /** reads made (metrics, tests) */
  reads = 0;

  constructor(private readonly o: OlderPagesOptions<E>) {}

  /** The page holding the event after `seq`. */
  pageOf(seq: number): number {
    return Math.floor(seq / this.o.size);
  }

  /** Page `k` if it is held, refreshed as recently used. */
  held(k: number): OlderPage | undefined {
    const page = this.kept.get(k);
    if (page) {
      this.kept.delete(k);
      this.kept.set(k, page);
    }
    return page;
  }

  /** Reads page `k` (one read shared by every caller); `newest` is the newest seq the log is known to hold. */
  load(k: number, newest: number): Promise<OlderPage> {
    const held = this.held(k);
    if (held) return Promise.resolve(held);
    let loading = this.loading.get(k);
    if (!loading) {
      loading = this.readPage(k, newest).finally(() => this.loading.delete(k));
      this.loading.set(k, loading);
    }
    return loading;
  }

  /** Drops every page (the log started over). */
  clear(): void {
    this.kept.clear();
  }

  private async readPage(k: number, newest: number): Promise<OlderPage> {
    const end = (k + 1) * this.o.size;
    const page: OlderPage = { seqs: [], texts: [], coveredTo: end };
    let from = k * this.o.size;
    for (;;) {
      this.reads++;
      const events = await answeredWithin(
        this.o.read(from, end - from),
        this.o.readTimeoutMs ?? PAGE_READ_TIMEOUT_MS,
        `the event log's read after seq ${from}`,
      );
      if (events.length === 0) {
        // nothing after `from` although the log holds newer events: a cut-short read, not a proof
        if (from < Math.min(end, newest)) throw new Error(`the event log answered no events after seq ${from} though it holds up to ${newest}`);
        // the log ends inside this page: it proves nothing past what it holds now, and is not kept
        page.coveredTo = Math.min(end, Math.max(from, newest));
        if (page.coveredTo < end) return page;
        break;
      }
      let lastRead = from;
      for (const e of events) {
        if (e.seq <= lastRead) continue; // a log that hands a seq twice or out of order: each once, in order
        lastRead = e.seq;
        if (e.seq > end) break;
        page.seqs.push(e.seq);
        page.texts.push(JSON.stringify(e));
      }
      if (lastRead >= end) break;
      if (lastRead === from) throw new Error(`the event log answered no event after seq ${from}`);
      from = lastRead;
    }
    this.kept.set(k, page);
    while (this.kept.size > this.o.maxPages) this.kept.delete(this.kept.keys().next().value as number);
    return page;
  }
}
