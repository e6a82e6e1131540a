/** JSON-RPC to the local chain without a socket: used by its own fresh-dir setup, before it listens. */
import type { JsonRpcTransport } from '../rpc-client.ts';
import type { JsonRpcDispatcher } from './json-rpc.ts';

/** A transport that hands requests straight to the dispatcher (same validation and answers as over HTTP). */
export class InProcessTransport implements JsonRpcTransport {
  readonly description = 'in-process local chain';

  constructor(private readonly dispatcher: JsonRpcDispatcher) {}

  async exchange(body: object): Promise<unknown> {
    // round-trip through JSON so the answer is exactly what a socket would carry
    return JSON.parse(await this.dispatcher.handleText(JSON.stringify(body))) as unknown;
  }
}
