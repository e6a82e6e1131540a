/**
 * A WebSocket client of the gateway that records when each bet was announced (`bet_open`, with
 * its expireTime) and every time it was settled (`bet_closed`), as received. It resumes with
 * `?since=<last seq>&epoch=` whenever its socket drops (docs/gateway-api.md#resume), so nothing
 * is missed and a duplicate would be the gateway's.
 */
import WebSocket from 'ws';

/** A bet as announced. */
export interface Opened {
  /** unix s */
  expireTime: number;
  /** unix ms it was received */
  at: number;
}

export class BetEvents {
  /** bet id -> its first bet_open */
  readonly opened = new Map<string, Opened>();
  /** bet id -> how many bet_open were received */
  readonly openCount = new Map<string, number>();
  /** bet id -> unix ms of every bet_closed received */
  readonly closedAt = new Map<string, number[]>();
  reconnects = 0;
  private lastSeq = 0;
  private epoch = '';
  private ws: WebSocket | null = null;
  private stopped = false;

  private constructor(private readonly url: string) {}

  /** Connects to `base` (http://...) and resolves once the socket is open. */
  static async watch(base: string): Promise<BetEvents> {
    const events = new BetEvents(`${base.replace('http', 'ws')}/api/ws`);
    await new Promise<void>((resolve, reject) => {
      const ws = events.connect();
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return events;
  }

  /** Whether every bet announced so far (and every id in `also`) has been settled. */
  allClosed(also: Iterable<string> = []): boolean {
    for (const id of this.opened.keys()) if (!this.closedAt.has(id)) return false;
    for (const id of also) if (!this.closedAt.has(id)) return false;
    return true;
  }

  close(): void {
    this.stopped = true;
    this.ws?.close();
  }

  private connect(): WebSocket {
    const query = this.lastSeq > 0 ? `?since=${this.lastSeq}${this.epoch ? `&epoch=${encodeURIComponent(this.epoch)}` : ''}` : '';
    const ws = new WebSocket(`${this.url}${query}`);
    this.ws = ws;
    ws.on('message', (data) => this.receive(String(data)));
    ws.on('error', () => undefined);
    ws.on('close', () => {
      if (this.stopped) return;
      setTimeout(() => {
        this.reconnects++;
        this.connect();
      }, 250);
    });
    return ws;
  }

  private receive(text: string): void {
    const e = JSON.parse(text) as { type?: string; id?: string; seq?: number; expireTime?: number; epoch?: string };
    if (e.type === 'resume') {
      if (typeof e.epoch === 'string') this.epoch = e.epoch;
      return;
    }
    if (typeof e.seq === 'number' && e.seq > this.lastSeq) this.lastSeq = e.seq;
    if (typeof e.id !== 'string') return;
    const now = Date.now();
    if (e.type === 'bet_open') {
      this.openCount.set(e.id, (this.openCount.get(e.id) ?? 0) + 1);
      if (!this.opened.has(e.id)) this.opened.set(e.id, { expireTime: Number(e.expireTime), at: now });
    } else if (e.type === 'bet_closed') {
      const times = this.closedAt.get(e.id) ?? [];
      times.push(now);
      this.closedAt.set(e.id, times);
    }
  }
}
