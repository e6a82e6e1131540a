/**
 * Several JSON-RPC endpoints as one transport (docs/architecture.md#landing-transactions), as gateways on a
 * public cluster run: a `sendTransaction` goes to every endpoint at once (each forwards it to
 * the leaders on its own path; the first answer that carries a result wins), every other call goes to
 * the endpoint that answered last and fails over to the next when it cannot answer (a refused
 * connection, a timeout, a 429).
 *
 * @example
 *   const transport = endpoints(['https://a.example', 'https://b.example'].map((u) => new HttpTransport(u)));
 */
import { ChainUnavailable } from './port.ts';
import { ChainUnreachable, type JsonRpcTransport } from './rpc-client.ts';

/** One transport over `transports` (itself when there is one). */
export function endpoints(transports: JsonRpcTransport[]): JsonRpcTransport {
  if (transports.length === 0) throw new Error('endpoints: no transport');
  if (transports.length === 1) return transports[0] as JsonRpcTransport;
  return new Endpoints(transports);
}

const isSend = (body: object): boolean => (body as { method?: unknown }).method === 'sendTransaction';
const hasResult = (answer: unknown): boolean => typeof answer === 'object' && answer !== null && 'result' in answer;

class Endpoints implements JsonRpcTransport {
  /** the endpoint reads go to first: the last one that answered */
  private preferred = 0;

  constructor(private readonly transports: JsonRpcTransport[]) {}

  get description(): string {
    return this.transports.map((t) => t.description).join(', ');
  }

  exchange(body: object): Promise<unknown> {
    return isSend(body) ? this.fanOut(body) : this.failOver(body);
  }

  close(): void {
    for (const t of this.transports) t.close?.();
  }

  /** Every endpoint at once; the first answer with a result, else the first answer, else the first failure. */
  private fanOut(body: object): Promise<unknown> {
    return new Promise((resolve, reject) => {
      let pending = this.transports.length;
      let answer: { value: unknown } | null = null;
      let failure: unknown = null;
      const done = () => {
        if (--pending > 0) return;
        if (answer) resolve(answer.value);
        else reject(failure instanceof Error ? failure : new ChainUnavailable(`no endpoint answered (${this.description})`));
      };
      for (const t of this.transports) {
        t.exchange(body).then(
          (value) => {
            if (hasResult(value)) resolve(value);
            answer ??= { value };
            done();
          },
          (err: unknown) => {
            // "never delivered" only if no endpoint may have taken it
            if (failure === null || failure instanceof ChainUnreachable) failure = err;
            done();
          },
        );
      }
    });
  }

  /** The preferred endpoint, then each other in turn while they fail to answer. */
  private async failOver(body: object): Promise<unknown> {
    let first: unknown = null;
    for (let i = 0; i < this.transports.length; i++) {
      const at = (this.preferred + i) % this.transports.length;
      try {
        const value = await (this.transports[at] as JsonRpcTransport).exchange(body);
        this.preferred = at;
        return value;
      } catch (err) {
        if (!(err instanceof ChainUnavailable)) throw err;
        first ??= err;
      }
    }
    throw first instanceof Error ? first : new ChainUnavailable(`no endpoint answered (${this.description})`);
  }
}
