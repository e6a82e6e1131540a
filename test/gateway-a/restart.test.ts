/**
 * SIGKILL of the gateway while bets are open: after a restart every bet is settled exactly once
 * (the chain is the truth), and a client reconnecting with `since` misses no event.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, EventClient, sleep, startGatewayStack, until, type GatewayStack } from '../support/gateway-stack.ts';

let stack: GatewayStack;
const api = (method: string, path: string, body?: unknown) => call(stack.base, method, path, body);

beforeAll(async () => {
  stack = await startGatewayStack();
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

it('settles every open bet exactly once across a SIGKILL and replays missed events', async () => {
  const wallets: string[] = [];
  for (let i = 0; i < 3; i++) {
    const w = await api('POST', '/api/wallet', {});
    await api('GET', `/api/faucet/${w.body.address}`);
    wallets.push(w.body.address);
  }
  await stack.tick('150.00');
  await expect.poll(async () => (await api('GET', '/api/price')).status).toBe(200);

  const ws = new EventClient(stack.wsUrl);
  await ws.opened;
  const ids: string[] = [];
  for (const [i, address] of wallets.entries()) {
    const r = await api('POST', '/api/bet', { address, side: i % 2 ? 'DOWN' : 'UP', amountUnits: '100000000' });
    expect(r.status).toBe(200);
    ids.push(r.body.id);
  }
  const opens = await Promise.all(ids.map((id) => ws.waitFor((e) => e.type === 'bet_open' && e.id === id)));
  const lastSeq = Math.max(...ws.events.filter((e) => typeof e.seq === 'number').map((e) => e.seq as number));
  ws.close();

  await stack.restartGateway('SIGKILL');

  const lastExpire = Math.max(...opens.map((o) => o.expireTime as number));
  await until(lastExpire * 1000 - 800);
  await stack.tick('151.00', Math.min(...opens.map((o) => o.expireTime as number)) * 1000 - 1);
  await until(lastExpire * 1000 + 50);
  await stack.tick('152.00');

  // a client that reconnects with since=<last seq it saw> gets the missed events, then live ones
  const again = new EventClient(`${stack.wsUrl}?since=${lastSeq}`);
  await again.opened;
  for (const id of ids) await again.waitFor((e) => e.type === 'bet_closed' && e.id === id, 30_000);
  await sleep(1500); // several more settlement ticks: nothing may be closed twice
  for (const id of ids) expect(again.events.filter((e) => e.type === 'bet_closed' && e.id === id)).toHaveLength(1);
  const replayedSeqs = again.events.filter((e) => typeof e.seq === 'number').map((e) => e.seq as number);
  expect(Math.min(...replayedSeqs)).toBe(lastSeq + 1);
  expect(replayedSeqs).toEqual([...new Set(replayedSeqs)].sort((x, y) => x - y));

  // a client replaying from 0 sees each bet opened once and closed once
  const full = new EventClient(`${stack.wsUrl}?since=0`);
  await full.opened;
  await full.waitFor((e) => e.type === 'bet_closed' && e.id === ids[ids.length - 1]);
  for (const id of ids) {
    expect(full.events.filter((e) => e.type === 'bet_open' && e.id === id)).toHaveLength(1);
    expect(full.events.filter((e) => e.type === 'bet_closed' && e.id === id)).toHaveLength(1);
  }
  again.close();
  full.close();

  const balances = await Promise.all(wallets.map(async (a) => BigInt((await api('GET', `/api/balance/${a}`)).body.tokenUnits)));
  expect(balances).toEqual([10_130_000_000n - 100_000_000n, 9_900_000_000n, 10_130_000_000n - 100_000_000n]);
});
