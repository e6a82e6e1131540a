/**
 * Profile A, black box: the real gateway process against a real NATS (ticks published here),
 * real Redis and the local chain process, GW_EXPIRY_SECONDS=3. The whole of docs/gateway-api.md for Profile A,
 * run by `profile-a.test.ts` (one Redis server) and `profile-a-cluster.test.ts` (a Redis Cluster).
 *
 * @example
 *   describeProfileA(() => startGatewayStack());
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, EventClient, until, type GatewayStack } from '../support/gateway-stack.ts';
import { BASE58_ADDRESS } from '../../kernel/schemas.ts';

/** Registers the Profile A suite against the stack `start` gives (started once for the file); answers the running stack. */
export function describeProfileA(start: () => Promise<GatewayStack>): () => GatewayStack {
  let stack: GatewayStack;
  const api = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => call(stack.base, method, path, body, headers);

  async function newFundedWallet(): Promise<string> {
    const w = await api('POST', '/api/wallet', {});
    expect(w.status).toBe(200);
    const f = await api('GET', `/api/faucet/${w.body.address}`);
    expect(f.status).toBe(200);
    return w.body.address as string;
  }

  const tokens = async (address: string): Promise<bigint> => BigInt((await api('GET', `/api/balance/${address}`)).body.tokenUnits);

  beforeAll(async () => {
    stack = await start();
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  });

  describe('prices', () => {
    it('answers 503 with an error before the first tick, then the price object with 8 digits', async () => {
      for (const path of ['/api/price', '/price']) {
        const r = await api('GET', path);
        expect(r.status).toBe(503);
        expect(typeof r.body.error).toBe('string');
      }
      const ts = Date.now();
      await stack.tick('150.1234', ts);
      await expect.poll(async () => (await api('GET', '/api/price')).status).toBe(200);
      for (const path of ['/api/price', '/price']) {
        const r = await api('GET', path);
        expect(r.body).toEqual({ symbol: 'solusdt', price: '150.12340000', ts });
      }
    });

    it('sends a price snapshot on connect and every tick to every socket', async () => {
      const a = new EventClient(stack.wsUrl);
      const b = new EventClient(stack.wsUrl);
      await Promise.all([a.opened, b.opened]);
      const snap = await a.waitFor((e) => e.type === 'price');
      expect(snap).toMatchObject({ type: 'price', symbol: 'solusdt', price: expect.stringMatching(/^\d+\.\d{8}$/), ts: expect.any(Number) });
      const ts = Date.now();
      await stack.tick('151', ts);
      for (const c of [a, b]) {
        const e = await c.waitFor((x) => x.type === 'price' && x.ts === ts);
        expect(e).toMatchObject({ symbol: 'solusdt', price: '151.00000000', seq: expect.any(Number) });
      }
      a.close();
      b.close();
    });
  });

  describe('routes', () => {
    it('serves the contract state with the spec fields and types', async () => {
      const r = await api('GET', '/api/state');
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        counter: expect.stringMatching(/^\d+$/),
        nextBetId: expect.stringMatching(/^\d+$/),
        minAmount: '100000000',
        maxAmount: '10000000000',
        minAmountHuman: '100.000000',
        maxAmountHuman: '10000.000000',
        multiplierBps: '13000',
        expirySeconds: '3',
        paused: 0,
        admin: expect.any(String),
        relayer: expect.any(String),
        vaultBalance: expect.stringMatching(/^\d+$/),
        vaultBalanceHuman: expect.stringMatching(/^\d+\.\d{6}$/),
      });
      expect((await api('GET', '/state')).body).toEqual(r.body);
    });

    it('creates wallets only on POST /api/wallet with a JSON content type and body', async () => {
      const ok = await api('POST', '/api/wallet', {});
      expect(ok.status).toBe(200);
      expect(Object.keys(ok.body)).toEqual(['address']);
      expect(ok.body.address).toMatch(BASE58_ADDRESS);
      expect((await api('POST', '/wallet', {})).status).toBe(405);
      expect((await fetch(`${stack.base}/api/wallet`, { method: 'POST' })).status).toBe(405);
      expect((await fetch(`${stack.base}/api/wallet`, { method: 'POST', body: '{}' })).status).toBe(405);
      expect((await fetch(`${stack.base}/api/wallet`, { method: 'POST', headers: { 'Content-Type': 'application/json' } })).status).toBe(405);
    });

    it('funds through the faucet with 5 SOL and 10000 tokens and reports balances', async () => {
      const { body } = await api('POST', '/api/wallet', {});
      const before = await api('GET', `/api/balance/${body.address}`);
      expect(before.body).toEqual({ sol: 0, solLamports: 0, tokenUnits: '0', tokenHuman: '0.000000' });
      const f = await api('GET', `/api/faucet/${body.address}`);
      expect(f.status).toBe(200);
      expect(f.body).toEqual({ address: body.address, sol: 5, solLamports: 5_000_000_000, tokenUnits: '10000000000', tokenHuman: '10000.000000' });
      const after = await api('GET', `/balance/${body.address}`);
      expect(after.body).toEqual({ sol: 5, solLamports: 5_000_000_000, tokenUnits: '10000000000', tokenHuman: '10000.000000' });
    });

    it('answers 404 for POST /api/close, 405 for POST /bet without /api, and CORS everywhere', async () => {
      expect((await api('POST', '/api/close', {})).status).toBe(404);
      expect((await api('POST', '/bet', { address: 'x', side: 'UP', amountUnits: '1' })).status).toBe(405);
      const r = await api('GET', '/api/state');
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      const pre = await fetch(`${stack.base}/api/bet`, {
        method: 'OPTIONS',
        headers: { Origin: 'http://example.test', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
      });
      expect(pre.status).toBeLessThan(300);
      expect(pre.headers.get('access-control-allow-origin')).toBe('*');
      expect(pre.headers.get('access-control-allow-methods')).toContain('POST');
      const err = await api('POST', '/api/close', {});
      expect(err.headers.get('access-control-allow-origin')).toBe('*');
    });
  });

  describe('outside test mode', () => {
    it('answers 403 for the faucet and wallet creation (SMART_MODE=prod)', async () => {
      const { startRedisServer } = await import('../support/servers.ts');
      const redis = await startRedisServer();
      try {
        const prod = await stack.extraGateway({
          SMART_MODE: 'prod',
          GW_KEYSTORE_SECRET: 'a-production-secret-of-some-length',
          REDIS_URL: redis.url,
          REDIS_CLUSTER_NODES: '',
          GW_INIT: 'off',
        });
        const w = await call(prod.base, 'POST', '/api/wallet', {});
        expect(w.status).toBe(403);
        expect(typeof w.body.error).toBe('string');
        const f = await call(prod.base, 'GET', '/api/faucet/GdnSyH3YtwcxFvQrVVJMm1JhTS4QVX7MFsX56uJLUfiZ');
        expect(f.status).toBe(403);
        expect(typeof f.body.error).toBe('string');
        await prod.process.stop();
      } finally {
        await redis.stop();
      }
    });
  });

  describe('POST /api/bet validation (400)', () => {
    let address: string;
    beforeAll(async () => {
      address = await newFundedWallet();
      await stack.tick('150');
    });

    it.each([
      ['missing amountUnits', { side: 'UP' }],
      ['amountUnits not an integer', { side: 'UP', amountUnits: '1.5' }],
      ['amountUnits zero', { side: 'UP', amountUnits: '0' }],
      ['amountUnits negative', { side: 'UP', amountUnits: -100000000 }],
      ['amountUnits text', { side: 'UP', amountUnits: 'lots' }],
      ['amountUnits fractional number', { side: 'UP', amountUnits: 100000000.5 }],
      ['below minAmount', { side: 'UP', amountUnits: '99999999' }],
      ['above maxAmount', { side: 'UP', amountUnits: '10000000001' }],
      ['unknown side', { side: 'SIDEWAYS', amountUnits: '100000000' }],
      ['missing side', { amountUnits: '100000000' }],
    ])('%s', async (_, partial) => {
      const r = await api('POST', '/api/bet', { address, ...partial });
      expect(r.status).toBe(400);
      expect(typeof r.body.error).toBe('string');
    });

    it('says amountUnits must be a positive integer in token base units when `amount` is sent', async () => {
      const r = await api('POST', '/api/bet', { address, side: 'UP', amount: '100000000' });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatch(/amountUnits/);
      expect(r.body.error).toMatch(/positive integer/);
      expect(r.body.error).toMatch(/base units/);
    });

    it('answers 400 for a body that is not JSON', async () => {
      const r = await api('POST', '/api/bet', '{not json', { 'Content-Type': 'application/json' });
      expect(r.status).toBe(400);
    });
  });

  describe('bets end to end', () => {
    it('pays a win, keeps a loss, refunds a tie, with exact balances and events', async () => {
      const ws = new EventClient(stack.wsUrl);
      await ws.opened;
      const [upWinner, downLoser, tieUp] = await Promise.all([newFundedWallet(), newFundedWallet(), newFundedWallet()]);
      const vaultBefore = BigInt((await api('GET', '/api/state')).body.vaultBalance);

      // round 1: entry 150, exit 151 -> UP wins, DOWN loses
      await stack.tick('150.00');
      const a = await api('POST', '/api/bet', { address: upWinner, side: 'UP', amountUnits: '100000000' });
      const b = await api('POST', '/api/bet', { address: downLoser, side: 'down', amountUnits: 100000000 });
      expect(a.status).toBe(200);
      expect(b.status).toBe(200);
      expect(a.body).toEqual({ tx: expect.any(String), id: expect.stringMatching(/^\d+$/), bettor: upWinner, entryPrice: 15_000_000_000 });
      expect(b.body).toMatchObject({ bettor: downLoser, entryPrice: 15_000_000_000 });

      const openA = await ws.waitFor((e) => e.type === 'bet_open' && e.id === a.body.id);
      expect(openA).toEqual({
        type: 'bet_open',
        id: a.body.id,
        bettor: upWinner,
        side: 'UP',
        amountUnits: '100000000',
        entryPrice: 15_000_000_000,
        expireTime: expect.any(Number),
        seq: expect.any(Number),
      });
      const openB = await ws.waitFor((e) => e.type === 'bet_open' && e.id === b.body.id);
      expect(openB.side).toBe('DOWN');
      const lastExpire = Math.max(openA.expireTime, openB.expireTime);
      const firstExpire = Math.min(openA.expireTime, openB.expireTime);
      expect(openA.expireTime - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(3);

      await until(firstExpire * 1000 - 400);
      await stack.tick('151.00', firstExpire * 1000 - 1);
      await until(lastExpire * 1000 + 50);
      await stack.tick('152.00');

      const closedA = await ws.waitFor((e) => e.type === 'bet_closed' && e.id === a.body.id);
      expect(closedA).toEqual({
        type: 'bet_closed',
        id: a.body.id,
        bettor: upWinner,
        exitPrice: 15_100_000_000,
        status: 1,
        statusName: 'payout_done',
        seq: expect.any(Number),
      });
      const closedB = await ws.waitFor((e) => e.type === 'bet_closed' && e.id === b.body.id);
      expect(closedB).toMatchObject({ bettor: downLoser, exitPrice: 15_100_000_000, status: 2, statusName: 'house_won' });

      // round 2: entry == exit -> refunded, status 3
      await stack.tick('152.00');
      const c = await api('POST', '/api/bet', { address: tieUp, side: 'Up', amountUnits: '250000000' });
      expect(c.status).toBe(200);
      const openC = await ws.waitFor((e) => e.type === 'bet_open' && e.id === c.body.id);
      await until(openC.expireTime * 1000 + 50);
      await stack.tick('153.00');
      const closedC = await ws.waitFor((e) => e.type === 'bet_closed' && e.id === c.body.id);
      expect(closedC).toMatchObject({ bettor: tieUp, exitPrice: 15_200_000_000, status: 3, statusName: 'refunded' });

      expect(await tokens(upWinner)).toBe(10_000_000_000n - 100_000_000n + 130_000_000n);
      expect(await tokens(downLoser)).toBe(10_000_000_000n - 100_000_000n);
      expect(await tokens(tieUp)).toBe(10_000_000_000n);
      const vaultAfter = BigInt((await api('GET', '/api/state')).body.vaultBalance);
      expect(vaultAfter - vaultBefore).toBe(100_000_000n - 30_000_000n);

      // each bet closed exactly once, seq strictly increasing
      for (const id of [a.body.id, b.body.id, c.body.id]) expect(ws.events.filter((e) => e.type === 'bet_closed' && e.id === id)).toHaveLength(1);
      const seqs = ws.events.filter((e) => typeof e.seq === 'number').map((e) => e.seq as number);
      expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
      expect(new Set(seqs).size).toBe(seqs.length);
      ws.close();
    });

    it('allows one open bet per address under concurrent requests (409 with openBetId)', async () => {
      const address = await newFundedWallet();
      await stack.tick('150.00');
      const replies = await Promise.all(Array.from({ length: 6 }, () => api('POST', '/api/bet', { address, side: 'UP', amountUnits: '100000000' })));
      const ok = replies.filter((r) => r.status === 200);
      const conflicts = replies.filter((r) => r.status === 409);
      expect(ok).toHaveLength(1);
      expect(conflicts).toHaveLength(5);
      for (const r of conflicts) {
        expect(r.body.openBetId).toBe(ok[0]!.body.id);
        expect(r.body.error).toMatch(/open bet/i);
      }
      expect(await tokens(address)).toBe(10_000_000_000n - 100_000_000n);
    });

    it('refuses with 403 while paused (admin token required to pause)', async () => {
      const address = await newFundedWallet();
      await stack.tick('150.00');
      expect((await api('POST', '/api/admin/pause', { paused: true })).status).toBe(401);
      const auth = { Authorization: 'Bearer test-admin-token' };
      expect((await api('POST', '/api/admin/pause', { paused: true }, auth)).status).toBe(200);
      expect((await api('GET', '/api/state')).body.paused).toBe(1);
      const r = await api('POST', '/api/bet', { address, side: 'UP', amountUnits: '100000000' });
      expect(r.status).toBe(403);
      expect(typeof r.body.error).toBe('string');
      expect((await api('POST', '/api/admin/pause', { paused: false }, auth)).status).toBe(200);
      expect((await api('GET', '/api/state')).body.paused).toBe(0);
      expect((await api('POST', '/api/bet', { address, side: 'UP', amountUnits: '100000000' })).status).toBe(200);
    });

    it('refuses an address whose key it does not hold and that approved no delegate (400 saying why)', async () => {
      const outsider = 'GdnSyH3YtwcxFvQrVVJMm1JhTS4QVX7MFsX56uJLUfiZ';
      await api('GET', `/api/faucet/${outsider}`);
      await stack.tick('150.00');
      const r = await api('POST', '/api/bet', { address: outsider, side: 'UP', amountUnits: '100000000' });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatch(/delegate/i);
    });
  });

  return () => stack;
}
