/**
 * The PubSub side of the local chain (WebSocket, by convention on the RPC port + 1, as web3.js
 * derives it): `signatureSubscribe` / `signatureUnsubscribe`, so an unmodified web3.js
 * `confirmTransaction` / `sendAndConfirmTransaction` resolves against the local chain.
 */
import uws from 'uWebSockets.js';
import type { us_listen_socket, WebSocket } from 'uWebSockets.js';
import * as v from 'valibot';
import type { Logger } from '../../../runtime/log.ts';
import type { LocalNode } from './node.ts';
import { RPC_CODES } from './rpc-failure.ts';

interface Client {
  closed: boolean;
  subs: Map<number, () => void>;
}

const Request = v.object({ jsonrpc: v.literal('2.0'), id: v.union([v.number(), v.string()]), method: v.string(), params: v.optional(v.array(v.unknown())) });

/** Serves signature subscriptions on `port`; resolves with the port actually bound. */
export async function listenSubscriptions(node: LocalNode, host: string, port: number, log: Logger): Promise<{ port: number; close(): void }> {
  let nextId = 1;
  const open = new Set<WebSocket<Client>>();
  const send = (ws: WebSocket<Client>, msg: object) => {
    if (!ws.getUserData().closed) ws.send(JSON.stringify(msg));
  };
  const app = uws.App().ws<Client>('/*', {
    idleTimeout: 120,
    upgrade: (res, req, context) => {
      res.upgrade<Client>({ closed: false, subs: new Map() }, req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'), req.getHeader('sec-websocket-extensions'), context);
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
      if (method === 'signatureSubscribe' && typeof params[0] === 'string') {
        const sub = nextId++;
        send(ws, { jsonrpc: '2.0', result: sub, id });
        const stop = node.watchSignature(params[0], (st) => {
          client.subs.delete(sub);
          send(ws, { jsonrpc: '2.0', method: 'signatureNotification', params: { result: { context: { slot: st.slot }, value: { err: st.err } }, subscription: sub } });
        });
        client.subs.set(sub, stop);
      } else if (method === 'signatureUnsubscribe' && typeof params[0] === 'number') {
        const stop = client.subs.get(params[0]);
        client.subs.delete(params[0]);
        stop?.();
        send(ws, { jsonrpc: '2.0', result: stop !== undefined, id });
      } else if (method === 'signatureSubscribe' || method === 'signatureUnsubscribe') {
        send(ws, { jsonrpc: '2.0', error: { code: RPC_CODES.invalidParams, message: 'Invalid params' }, id });
      } else {
        send(ws, { jsonrpc: '2.0', error: { code: RPC_CODES.methodNotFound, message: 'Method not found' }, id });
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
    },
  };
}
