/**
 * Solana's PubSub (JSON-RPC over WebSocket) as the chain mirror uses it: subscriptions that
 * survive a dropped connection. The client reconnects with backoff and jitter, renews every
 * subscription, and then tells its listeners to re-sync (notifications sent while it was away are
 * lost). `status()` says whether notifications are flowing.
 *
 * A socket that stays open but goes silent (an idle NAT or load-balancer entry dropped, a node that
 * stops sending) is noticed by pinging (docs/architecture.md#the-chain-mirror): when nothing was
 * heard for `pingMs`, a JSON-RPC request the server must answer (a method it does not serve: the
 * error is the answer) is sent; after `maxMissedPongs` unanswered in a row the socket is dropped
 * and the client reconnects and re-syncs, as after a cut.
 *
 * @example
 *   const pubsub = new WsPubSub('ws://127.0.0.1:8900', log);
 *   await pubsub.subscribe('programSubscribe', [programId, { encoding: 'base64' }], (result) => apply(result));
 *   pubsub.onResync(() => refetchEverything());
 */
import WebSocket from 'ws';
import * as v from 'valibot';
import type { Logger } from '../../kernel/log.ts';
import { backoffMs, type RetryPolicy } from '../../kernel/backoff.ts';

/** The subscription methods used. */
export type SubscribeMethod = 'accountSubscribe' | 'programSubscribe' | 'signatureSubscribe';

/** A live subscription. */
export interface Subscription {
  unsubscribe(): void;
}

/** What the mirror needs of a PubSub connection. */
export interface PubSub {
  /** Subscribes; `onNotify` gets each notification's `result` ({context:{slot}, value}). Resolves once the server acknowledged it. */
  subscribe(method: SubscribeMethod, params: unknown[], onNotify: (result: unknown) => void): Promise<Subscription>;
  /** Called after a lost connection was re-established and every subscription renewed. Returns an unsubscribe. */
  onResync(cb: () => void): () => void;
  status(): 'open' | 'connecting' | 'closed';
  /** unix ms of the last status change (how long it has been down) */
  statusSince(): number;
  close(): void;
}

const UNSUBSCRIBE: Record<SubscribeMethod, string> = {
  accountSubscribe: 'accountUnsubscribe',
  programSubscribe: 'programUnsubscribe',
  signatureSubscribe: 'signatureUnsubscribe',
};

const Message = v.union([
  v.object({ jsonrpc: v.literal('2.0'), id: v.number(), result: v.unknown() }),
  v.object({ jsonrpc: v.literal('2.0'), id: v.nullable(v.number()), error: v.object({ code: v.number(), message: v.string() }) }),
  v.object({ jsonrpc: v.literal('2.0'), method: v.string(), params: v.object({ result: v.unknown(), subscription: v.number() }) }),
]);

/** Pinging a quiet socket: how long without a word before a ping, and how many unanswered pings drop it. */
export interface PingPolicy {
  /** a ping is sent when nothing was heard for this long [PUBSUB_PING_MS] */
  pingMs: number;
  /** unanswered pings in a row after which the socket is dropped [PUBSUB_MAX_MISSED_PONGS] */
  maxMissedPongs: number;
}

/** how long a socket may be quiet before it is pinged */
export const PUBSUB_PING_MS = 2_000;
/** unanswered pings in a row that drop the socket: a silent socket is noticed within (PUBSUB_MAX_MISSED_PONGS + 2) × PUBSUB_PING_MS */
export const PUBSUB_MAX_MISSED_PONGS = 2;
/** the method a ping asks for: not one a PubSub server serves, so any server answers it at once with an error */
const PING_METHOD = 'ping';
/** reconnect delays: doubling from 100 ms to 3 s, each one drawn at random below that (full jitter) */
const RECONNECT: RetryPolicy = { baseMs: 100, maxMs: 3_000, jitter: 'full' };

interface Entry {
  method: SubscribeMethod;
  params: unknown[];
  onNotify: (result: unknown) => void;
  /** the server's id for it on the current connection */
  serverId: number | null;
  active: boolean;
  acknowledged: Array<(err?: Error) => void>;
}

/** A PubSub client over `ws`, reconnecting forever until `close()`. */
export class WsPubSub implements PubSub {
  private ws: WebSocket | null = null;
  private state: 'open' | 'connecting' | 'closed' = 'connecting';
  private since = Date.now();
  private nextId = 1;
  private readonly entries = new Set<Entry>();
  private readonly byServerId = new Map<number, Entry>();
  private readonly requests = new Map<number, (result: unknown, error?: string) => void>();
  private readonly resyncListeners = new Set<() => void>();
  private attempts = 0;
  private everOpened = false;
  private timer: NodeJS.Timeout | null = null;
  private pinger: NodeJS.Timeout | null = null;
  /** monotonic ms when the current socket last sent anything */
  private heardAt = 0;
  /** pings sent since the socket was last heard */
  private unanswered = 0;
  private readonly ping: PingPolicy;

  constructor(
    readonly url: string,
    private readonly log: Logger,
    ping: Partial<PingPolicy> = {},
  ) {
    this.ping = { pingMs: ping.pingMs ?? PUBSUB_PING_MS, maxMissedPongs: ping.maxMissedPongs ?? PUBSUB_MAX_MISSED_PONGS };
    this.connect();
  }

  status(): 'open' | 'connecting' | 'closed' {
    return this.state;
  }

  statusSince(): number {
    return this.since;
  }

  private setState(state: 'open' | 'connecting' | 'closed'): void {
    if (state !== this.state) this.since = Date.now();
    this.state = state;
  }

  subscribe(method: SubscribeMethod, params: unknown[], onNotify: (result: unknown) => void): Promise<Subscription> {
    const entry: Entry = { method, params, onNotify, serverId: null, active: true, acknowledged: [] };
    this.entries.add(entry);
    const subscription: Subscription = { unsubscribe: () => this.unsubscribe(entry) };
    return new Promise((resolve, reject) => {
      entry.acknowledged.push((err) => (err ? reject(err) : resolve(subscription)));
      if (this.state === 'open') this.renew(entry);
    });
  }

  onResync(cb: () => void): () => void {
    this.resyncListeners.add(cb);
    return () => this.resyncListeners.delete(cb);
  }

  close(): void {
    this.setState('closed');
    if (this.timer) clearTimeout(this.timer);
    this.stopPinging();
    this.ws?.close();
    this.ws = null;
    for (const e of this.entries) for (const ack of e.acknowledged.splice(0)) ack(new Error('pubsub closed'));
    this.entries.clear();
  }

  private unsubscribe(entry: Entry): void {
    entry.active = false;
    this.entries.delete(entry);
    if (entry.serverId !== null) {
      this.byServerId.delete(entry.serverId);
      this.request(UNSUBSCRIBE[entry.method], [entry.serverId], () => undefined);
    }
  }

  private connect(): void {
    if (this.state === 'closed') return;
    this.setState('connecting');
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.on('open', () => {
      if (this.ws !== ws) return;
      this.setState('open');
      this.startPinging(ws);
      const reconnected = this.everOpened;
      this.everOpened = true;
      this.attempts = 0;
      if (reconnected) this.log.info({ url: this.url, subscriptions: this.entries.size }, 'chain subscriptions reconnected; re-syncing');
      const renewals = [...this.entries].map((e) => new Promise<void>((resolve) => this.renew(e, resolve)));
      // renewals only resolve; emitResync guards each listener
      if (reconnected)
        Promise.all(renewals).then(
          () => this.emitResync(),
          () => undefined,
        );
    });
    ws.on('message', (data) => {
      if (this.ws !== ws) return;
      this.heard();
      this.receive(String(data));
    });
    ws.on('error', () => undefined); // 'close' follows
    ws.on('close', () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.stopPinging();
      for (const done of this.requests.values()) done(undefined, 'connection closed');
      this.requests.clear();
      this.byServerId.clear();
      for (const e of this.entries) e.serverId = null;
      if (this.state === 'closed') return;
      if (this.state === 'open') this.log.warn({ url: this.url }, 'chain subscriptions dropped; reconnecting');
      this.setState('connecting');
      // full jitter: the gateways of a deployment cut at once do not all come back in the same instant
      this.timer = setTimeout(() => this.connect(), backoffMs(++this.attempts, RECONNECT));
    });
  }

  private heard(): void {
    this.heardAt = performance.now();
    this.unanswered = 0;
  }

  /** Pings `ws` while it is quiet; drops it once `maxMissedPongs` pings in a row went unanswered. */
  private startPinging(ws: WebSocket): void {
    this.stopPinging();
    this.heard();
    const { pingMs, maxMissedPongs } = this.ping;
    this.pinger = setInterval(() => {
      if (this.ws !== ws || this.state !== 'open') return;
      const quietMs = performance.now() - this.heardAt;
      if (quietMs < pingMs) return;
      if (this.unanswered >= maxMissedPongs) {
        this.log.warn(
          { url: this.url, quietMs: Math.round(quietMs), pings: this.unanswered },
          'chain subscriptions silent; dropping the socket and reconnecting',
        );
        ws.terminate(); // 'close' follows: reconnect, renew, re-sync
        return;
      }
      this.unanswered++;
      // answered with an error (no such method) by a server that is there; the answer is all that counts
      this.request(PING_METHOD, [], () => undefined);
    }, pingMs);
    this.pinger.unref();
  }

  private stopPinging(): void {
    if (this.pinger) clearInterval(this.pinger);
    this.pinger = null;
  }

  private emitResync(): void {
    for (const cb of this.resyncListeners) {
      try {
        cb();
      } catch (err) {
        this.log.error({ err }, 'resync listener failed');
      }
    }
  }

  /** (Re)subscribes `entry` on the current connection. */
  private renew(entry: Entry, done: () => void = () => undefined): void {
    this.request(entry.method, entry.params, (result, error) => {
      done();
      if (!entry.active) {
        if (typeof result === 'number') this.request(UNSUBSCRIBE[entry.method], [result], () => undefined);
        return;
      }
      if (error !== undefined || typeof result !== 'number') {
        // refused (bad params): the caller hears of it; a lost connection renews it on the next one
        if (error !== 'connection closed')
          for (const ack of entry.acknowledged.splice(0)) ack(new Error(`${entry.method} refused: ${error ?? 'no subscription id'}`));
        return;
      }
      entry.serverId = result;
      this.byServerId.set(result, entry);
      for (const ack of entry.acknowledged.splice(0)) ack();
    });
  }

  private request(method: string, params: unknown[], done: (result: unknown, error?: string) => void): void {
    const ws = this.ws;
    if (!ws || this.state !== 'open') return done(undefined, 'connection closed');
    const id = this.nextId++;
    this.requests.set(id, done);
    ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  }

  private receive(text: string): void {
    let parsed: v.InferOutput<typeof Message>;
    try {
      parsed = v.parse(Message, JSON.parse(text));
    } catch {
      this.log.warn({ url: this.url }, 'chain subscription message that is not JSON-RPC; ignored');
      return;
    }
    if ('params' in parsed) {
      const entry = this.byServerId.get(parsed.params.subscription);
      if (!entry) return; // unsubscribed meanwhile
      try {
        entry.onNotify(parsed.params.result);
      } catch (err) {
        this.log.error({ err, method: parsed.method }, 'subscription handler failed');
      }
      return;
    }
    if (parsed.id === null) return;
    const done = this.requests.get(parsed.id);
    this.requests.delete(parsed.id);
    if ('error' in parsed) done?.(undefined, parsed.error.message);
    else done?.(parsed.result);
  }
}
