/**
 * The PubSub side of the local chain (WebSocket, by convention on the RPC port + 1, as web3.js
 * derives it), answering the way a validator does:
 * - `signatureSubscribe`: one `signatureNotification` once the transaction is durable (so an
 *   unmodified web3.js `confirmTransaction` resolves against the local chain);
 * - `accountSubscribe`: an `accountNotification` whenever a committed transaction wrote the account
 *   (a deleted account comes with 0 lamports, no data, owned by the system program);
 * - `programSubscribe` (with `dataSize`/`memcmp` filters): a `programNotification` for every
 *   account a transaction wrote that the program owns afterwards;
 * and their `*Unsubscribe`. Notifications go out when the transaction is durable, before its
 * status is visible, so a client that sees a signature confirmed has already been sent its changes.
 * A fault profile (docs/operations.md#a-fault-profile) holds signature notifications back while
 * statuses lag, cuts the sockets now and then (`cutAll`), or leaves them open and sends nothing
 * more on them (`silenceAll`).
 */
import uws from 'uWebSockets.js';
import type { us_listen_socket, WebSocket } from 'uWebSockets.js';
import * as v from 'valibot';
import type { Logger } from '../../../kernel/log.ts';
import type { FaultHooks } from './faults/hooks.ts';
import type { PubSubSockets } from './faults/pubsub-faults.ts';
import { parseParams } from './json-rpc.ts';
import type { LocalNode } from './node.ts';
import { RPC_CODES, RpcFailure } from './rpc-failure.ts';
import { Watchers, subscribeOnNode, type Notify } from './watchers.ts';
import type { PubSub, SubscribeMethod, Subscription } from '../pubsub.ts';

/** What one socket is subscribed to. */
interface Client {
  closed: boolean;
  /** silenced by the fault profile: open, and nothing more is sent on it */
  silent: boolean;
  /** subscription id -> how to stop it */
  subs: Map<number, () => void>;
}

const Request = v.object({ jsonrpc: v.literal('2.0'), id: v.union([v.number(), v.string()]), method: v.string(), params: v.optional(v.array(v.unknown())) });

const UNSUBSCRIBE: Record<string, string> = {
  signatureUnsubscribe: 'signatureSubscribe',
  accountUnsubscribe: 'accountSubscribe',
  programUnsubscribe: 'programSubscribe',
};

/** The PubSub server: its port, how to stop it, and how to cut or silence every socket open (each returns how many). */
export interface SubscriptionServer extends PubSubSockets {
  port: number;
  close(): void;
}

/** Serves subscriptions on `port`; resolves with the port actually bound. */
export async function listenSubscriptions(
  node: LocalNode,
  host: string,
  port: number,
  log: Logger,
  faults: FaultHooks | null = null,
): Promise<SubscriptionServer> {
  let nextId = 1;
  const open = new Set<WebSocket<Client>>();
  const watchers = new Watchers(node, faults);
  const send = (ws: WebSocket<Client>, msg: object) => {
    const client = ws.getUserData();
    if (!client.closed && !client.silent) ws.send(JSON.stringify(msg));
  };
  const app = uws.App().ws<Client>('/*', {
    idleTimeout: 120,
    maxBackpressure: 16 * 1024 * 1024,
    upgrade: (res, req, context) => {
      res.upgrade<Client>(
        { closed: false, silent: false, subs: new Map() },
        req.getHeader('sec-websocket-key'),
        req.getHeader('sec-websocket-protocol'),
        req.getHeader('sec-websocket-extensions'),
        context,
      );
    },
    open: (ws) => {
      open.add(ws);
    },
    message: (ws, raw) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(Buffer.from(raw).toString('utf8'));
      } catch {
        send(ws, { jsonrpc: '2.0', error: { code: RPC_CODES.parse, message: 'Parse error' }, id: null });
        return;
      }
      const req = v.safeParse(Request, parsed);
      if (!req.success) {
        send(ws, { jsonrpc: '2.0', error: { code: RPC_CODES.invalidRequest, message: 'Invalid request' }, id: null });
        return;
      }
      const { id, method, params = [] } = req.output;
      const client = ws.getUserData();
      try {
        if (method in UNSUBSCRIBE) {
          const [sub] = parseParams(v.tuple([v.pipe(v.number(), v.integer())]), params);
          const stop = client.subs.get(sub);
          client.subs.delete(sub);
          stop?.();
          send(ws, { jsonrpc: '2.0', result: stop !== undefined, id });
          return;
        }
        const sub = nextId++;
        const notify: Notify = (notification, subscription, result) => {
          if (notification === 'signatureNotification') {
            // a signature subscription ends with its one notification
            client.subs.get(subscription)?.();
            client.subs.delete(subscription);
          }
          send(ws, { jsonrpc: '2.0', method: notification, params: { result, subscription } });
        };
        // answer the subscription id before any notification (a known signature notifies in a microtask)
        const stop = subscribeOnNode(node, watchers, method, params, sub, notify);
        client.subs.set(sub, stop);
        send(ws, { jsonrpc: '2.0', result: sub, id });
      } catch (err) {
        const failure = err instanceof RpcFailure ? err : new RpcFailure(RPC_CODES.internal, (err as Error).message);
        send(ws, { jsonrpc: '2.0', error: { code: failure.code, message: failure.message }, id });
      }
    },
    close: (ws) => {
      open.delete(ws);
      const client = ws.getUserData();
      client.closed = true;
      for (const stop of client.subs.values()) stop();
      client.subs.clear();
    },
  });
  const socket = await new Promise<us_listen_socket>((resolve, reject) => {
    app.listen(host, port, (s) => (s ? resolve(s) : reject(new Error(`cannot listen for subscriptions on ${host}:${port}`))));
  });
  log.debug({ port: uws.us_socket_local_port(socket) }, 'subscriptions listening');
  return {
    port: uws.us_socket_local_port(socket),
    close: () => {
      uws.us_listen_socket_close(socket);
      for (const ws of [...open]) ws.close();
      watchers.close();
    },
    cutAll: () => {
      const cut = open.size;
      for (const ws of [...open]) ws.close(); // uWS: no close frame, the close handler runs at once
      return cut;
    },
    silenceAll: () => {
      let silenced = 0;
      for (const ws of open) {
        const client = ws.getUserData();
        if (!client.silent) silenced++;
        client.silent = true;
      }
      return silenced;
    },
  };
}

/**
 * The same subscriptions without a socket, for a gateway running in the chain's process: the
 * notifications are the objects the WebSocket would carry, delivered in the commit that made them.
 */
export class LocalPubSub implements PubSub {
  private readonly watchers: Watchers;
  private nextId = 1;
  private readonly stops = new Set<() => void>();
  private readonly opened = Date.now();

  constructor(
    private readonly node: LocalNode,
    faults: FaultHooks | null = null,
  ) {
    this.watchers = new Watchers(node, faults);
  }

  async subscribe(method: SubscribeMethod, params: unknown[], onNotify: (result: unknown) => void): Promise<Subscription> {
    let stop: () => void = () => undefined;
    stop = subscribeOnNode(this.node, this.watchers, method, params, this.nextId++, (_notification, _sub, result) => onNotify(result));
    this.stops.add(stop);
    return {
      unsubscribe: () => {
        stop();
        this.stops.delete(stop);
      },
    };
  }

  onResync(): () => void {
    return () => undefined; // nothing to lose: no connection
  }

  status(): 'open' {
    return 'open';
  }

  statusSince(): number {
    return this.opened;
  }

  close(): void {
    for (const stop of this.stops) stop();
    this.stops.clear();
    this.watchers.close();
  }
}
