/**
 * Several RPC endpoints as one transport: a transaction goes to all of them and the first answer
 * with a result wins; reads go to the endpoint that answered last and fail over while one cannot
 * answer; the failure reported says "never delivered" only when no endpoint may have taken it.
 */
import { describe, expect, it } from 'vitest';
import { endpoints } from './endpoints.ts';
import { ChainUnavailable } from './port.ts';
import { ChainUnreachable, RateLimited, type JsonRpcTransport } from './rpc-client.ts';
import { setTimeout as sleep } from 'node:timers/promises';

/** An endpoint that answers `result`, or fails with `fail`; counts its calls. */
class Endpoint implements JsonRpcTransport {
  calls = 0;
  constructor(
    readonly description: string,
    public behaviour: { result: unknown } | { error: unknown } | { fail: Error },
  ) {}
  async exchange(body: object): Promise<unknown> {
    this.calls++;
    await sleep(1);
    if ('fail' in this.behaviour) throw this.behaviour.fail;
    const id = (body as { id: number }).id;
    return 'result' in this.behaviour ? { jsonrpc: '2.0', id, result: this.behaviour.result } : { jsonrpc: '2.0', id, error: this.behaviour.error };
  }
}

const send = { jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: ['AA=='] };
const read = { jsonrpc: '2.0', id: 2, method: 'getSlot', params: [] };

describe('endpoints', () => {
  it('one endpoint is that endpoint', () => {
    const a = new Endpoint('a', { result: 1 });
    expect(endpoints([a])).toBe(a);
  });

  it('a transaction goes to every endpoint; an answer with a result wins over an error', async () => {
    const a = new Endpoint('a', { error: { code: -32002, message: 'preflight' } });
    const b = new Endpoint('b', { result: 'sig' });
    const c = new Endpoint('c', { fail: new ChainUnavailable('timeout') });
    await expect(endpoints([a, b, c]).exchange(send)).resolves.toMatchObject({ result: 'sig' });
    expect([a.calls, b.calls, c.calls]).toEqual([1, 1, 1]);
  });

  it('a transaction no endpoint took: the error answer, else a failure that is not "never delivered" when one may have taken it', async () => {
    const err = new Endpoint('a', { error: { code: -32002, message: 'preflight' } });
    const refused = new Endpoint('b', { fail: new ChainUnreachable('refused') });
    await expect(endpoints([refused, err]).exchange(send)).resolves.toMatchObject({ error: { code: -32002 } });
    const timedOut = new Endpoint('c', { fail: new ChainUnavailable('timeout') });
    const failure = await endpoints([refused, timedOut])
      .exchange(send)
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ChainUnavailable);
    expect(failure).not.toBeInstanceOf(ChainUnreachable);
    await expect(endpoints([refused, new Endpoint('d', { fail: new ChainUnreachable('refused') })]).exchange(send)).rejects.toBeInstanceOf(ChainUnreachable);
  });

  it('reads fail over while an endpoint cannot answer, and stay on the one that answered', async () => {
    const a = new Endpoint('a', { fail: new RateLimited('a', 1000) });
    const b = new Endpoint('b', { result: 7 });
    const both = endpoints([a, b]);
    await expect(both.exchange(read)).resolves.toMatchObject({ result: 7 });
    await expect(both.exchange(read)).resolves.toMatchObject({ result: 7 });
    expect([a.calls, b.calls]).toEqual([1, 2]);
    b.behaviour = { fail: new ChainUnavailable('down') };
    a.behaviour = { result: 8 };
    await expect(both.exchange(read)).resolves.toMatchObject({ result: 8 });
    a.behaviour = { fail: new ChainUnavailable('down') };
    await expect(both.exchange(read)).rejects.toBeInstanceOf(ChainUnavailable);
  });
});
