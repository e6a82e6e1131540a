import * as v from 'valibot';
import { afterAll, describe, expect, it } from 'vitest';
import { FaultChains, post, type Exchange } from '../../../../test/support/fault-chain.ts';
import { HttpTransport, RpcClient } from '../../rpc-client.ts';
import { zeroCounters } from './counters.ts';
import { RequestBursts, tooManyRequestsBody } from './http-bursts.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const chains = new FaultChains();
afterAll(() => chains.removeAll());

describe('burst-429', () => {
  it('counts windows from the start: Retry-After is the whole seconds left in the burst, at least 1', () => {
    let now = 10_000;
    const counters = zeroCounters();
    const bursts = new RequestBursts({ burstMs: 2_500, everyMs: 5_000 }, counters, () => now);
    const retryAt = (t: number) => {
      now = 10_000 + t;
      return bursts.answer('{}')?.retryAfterS ?? null;
    };
    expect([retryAt(0), retryAt(1_499), retryAt(1_600), retryAt(2_499), retryAt(2_500), retryAt(4_999), retryAt(5_000), retryAt(7_400)]).toEqual([
      3,
      2,
      1,
      1,
      null,
      null,
      3,
      1,
    ]);
    expect(counters.throttled).toBe(6);
  });

  it('answers the JSON-RPC error with the request id, for a batch one per request', () => {
    const error = { code: 429, message: 'Too many requests' };
    expect(JSON.parse(tooManyRequestsBody('{"jsonrpc":"2.0","id":"a","method":"getSlot"}'))).toEqual({ jsonrpc: '2.0', id: 'a', error });
    expect(JSON.parse(tooManyRequestsBody('[{"jsonrpc":"2.0","id":1,"method":"getSlot"},{"id":{}}]'))).toEqual([
      { jsonrpc: '2.0', id: 1, error },
      { jsonrpc: '2.0', id: null, error },
    ]);
    expect(JSON.parse(tooManyRequestsBody('not json'))).toEqual({ jsonrpc: '2.0', id: null, error });
  });

  it('over HTTP: 429 with Retry-After in every burst, plain answers between them, GET /health never limited', async () => {
    const chain = await chains.start('burst-429=300/1000');
    const answers: Array<Exchange & { id: number; sentAt: number; doneAt: number }> = [];
    let healthy = 0;
    const started = performance.now();
    for (let id = 1; performance.now() - started < 2_300; id++) {
      const sentAt = performance.now();
      const answer = await post(chain.url, { jsonrpc: '2.0', id, method: 'getSlot' });
      answers.push({ ...answer, id, sentAt, doneAt: performance.now() });
      const health = await fetch(`${chain.url}/health`);
      expect([health.status, await health.text()]).toEqual([200, 'ok']);
      healthy++;
      await sleep(10);
    }
    const limited = answers.filter((a) => a.status === 429);
    const plain = answers.filter((a) => a.status === 200);
    expect(limited.length + plain.length).toBe(answers.length);
    for (const a of limited) {
      expect(a.retryAfter).toBe('1');
      expect(a.body).toEqual({ jsonrpc: '2.0', id: a.id, error: { code: 429, message: 'Too many requests' } });
    }
    for (const a of plain) expect(a.body).toEqual({ jsonrpc: '2.0', id: a.id, result: expect.any(Number) });
    expect(chain.faults?.counters().throttled).toBe(limited.length);
    expect(healthy).toBe(answers.length);

    // the 429s come in runs no longer than a burst, one run per window
    const runs: Array<typeof answers> = [];
    answers.forEach((a, i) => {
      if (a.status !== 429) return;
      if (i > 0 && answers[i - 1]?.status === 429) runs.at(-1)?.push(a);
      else runs.push([a]);
    });
    expect(runs.length).toBeGreaterThanOrEqual(2);
    for (const run of runs) expect((run.at(-1)?.sentAt ?? 0) - (run[0]?.doneAt ?? 0)).toBeLessThan(300);
    for (let i = 1; i < runs.length; i++) {
      const gap = (runs[i]?.[0]?.doneAt ?? 0) - (runs[i - 1]?.[0]?.sentAt ?? 0);
      expect(gap).toBeGreaterThan(600);
      expect(gap).toBeLessThan(1_400);
    }
    expect(plain.length).toBeGreaterThan(limited.length);

    // the project's own client sees a 429 as the chain being unavailable (it retries later)
    const client = new RpcClient(new HttpTransport(chain.url));
    const outcomes = new Set<string>();
    for (const began = performance.now(); performance.now() - began < 1_100;) {
      outcomes.add(
        await client.call('getSlot', [], v.number()).then(
          () => 'ok',
          (err: Error) => err.message,
        ),
      );
      await sleep(20);
    }
    expect([...outcomes].some((o) => /answered HTTP 429/.test(o))).toBe(true);
  });
});
