import { describe, expect, it } from 'vitest';
import { findOnPath, parseWrkOutput } from './wrk.ts';

const CLEAN = `Running 5s test @ http://127.0.0.1:8080/bare
  1 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.53ms    1.80ms  18.97ms   89.46%
    Req/Sec    25.85k     8.97k   41.00k    56.00%
  Latency Distribution
     50%  900.00us
     75%    1.68ms
     90%    3.45ms
     99%    1.02s
  128694 requests in 5.01s, 56.21MB read
Requests/sec:  25662.25
Transfer/sec:     11.21MB
`;

describe('parseWrkOutput', () => {
  it('reads the request rate, the count and the latency percentiles in ms', () => {
    const r = parseWrkOutput(CLEAN);
    expect(r.requests).toBe(128694);
    expect(r.seconds).toBeCloseTo(5.01);
    expect(r.perSecond).toBeCloseTo(25662.25);
    expect(r.latencyMs.p50).toBeCloseTo(0.9);
    expect(r.latencyMs.p75).toBeCloseTo(1.68);
    expect(r.latencyMs.p99).toBeCloseTo(1020);
    expect(r.errors).toBe(0);
  });

  it('adds the non-2xx/3xx responses and the socket errors, printed only when there are some', () => {
    const text = CLEAN.replace('56.21MB read\n', '56.21MB read\n  Socket errors: connect 1, read 2, write 3, timeout 4\n  Non-2xx or 3xx responses: 10\n');
    const r = parseWrkOutput(text);
    expect(r.socketErrors).toEqual({ connect: 1, read: 2, write: 3, timeout: 4 });
    expect(r.non2xx3xx).toBe(10);
    expect(r.errors).toBe(20);
  });

  it('refuses output without the figures wrk always prints', () => {
    expect(() => parseWrkOutput('unable to connect to 127.0.0.1:1 Connection refused')).toThrow(/request count/);
  });
});

describe('findOnPath', () => {
  it('finds an executable in a PATH directory and nothing in an empty PATH', () => {
    expect(findOnPath('sh', '/nonexistent:/bin')).toBe('/bin/sh');
    expect(findOnPath('sh', '')).toBeNull();
  });
});
