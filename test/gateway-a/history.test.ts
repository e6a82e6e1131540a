/**
 * Bet history and settlement evidence, black box: the real gateway process on real Redis, NATS and
 * the local chain (GW_EXPIRY_SECONDS=3, settlement every 200 ms). Ticks rise steadily, so UP wins
 * and DOWN loses; the test checks GET /api/bets/:id evidence against the ticks it published,
 * paging of GET /api/bets, the order of GET /api/leaderboard, and that settled bets older than
 * a bettor's latest are reclaimed on chain while the history keeps them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PublicKey } from '@solana/web3.js';
import { betAddress, bettorAddress, decodeBettorState } from '../../adapters/chain/codec.ts';
import { call, fetchJson, startGatewayStack, type GatewayStack } from '../support/gateway-stack.ts';
import { setTimeout as sleep } from 'node:timers/promises';

let stack: GatewayStack;
const api = (method: string, path: string, body?: unknown) => call(stack.base, method, path, body);
const published: Array<{ e8: number; ts: number }> = [];
let ticker: NodeJS.Timeout | undefined;

async function newFundedWallet(): Promise<string> {
  const w = await api('POST', '/api/wallet', {});
  expect(w.status).toBe(200);
  expect((await api('GET', `/api/faucet/${w.body.address}`)).status).toBe(200);
  return w.body.address as string;
}

/** Places a bet; a 409 right after the previous one settled (the chain mirror has not seen the close yet) is retried. */
async function bet(address: string, side: 'UP' | 'DOWN'): Promise<{ id: string; tx: string; entryPrice: number }> {
  let r = await api('POST', '/api/bet', { address, side, amountUnits: '100000000' });
  for (const deadline = Date.now() + 10_000; r.status === 409 && Date.now() < deadline;) {
    await new Promise((res) => setTimeout(res, 200));
    r = await api('POST', '/api/bet', { address, side, amountUnits: '100000000' });
  }
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

async function settled(id: string): Promise<any> {
  let last: any;
  await expect
    .poll(
      async () => {
        last = (await api('GET', `/api/bets/${id}`)).body;
        return last?.status;
      },
      { timeout: 30_000, interval: 200 },
    )
    .not.toBe(0);
  return last;
}

beforeAll(async () => {
  stack = await startGatewayStack();
  let n = 0;
  const publish = () => {
    const ts = Date.now();
    const cents = 15_000 + n++;
    published.push({ e8: cents * 1_000_000, ts });
    stack.tick(`${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`, ts).catch(() => undefined);
  };
  publish();
  ticker = setInterval(publish, 250);
  for (const deadline = Date.now() + 10_000; (await api('GET', '/api/price')).status !== 200 && Date.now() < deadline;) await sleep(100);
}, 180_000);

afterAll(async () => {
  if (ticker) clearInterval(ticker);
  await stack?.stop();
});

describe('bet history', () => {
  let winner: string;
  let loser: string;
  const winnerBets: string[] = [];

  it('shows a settled bet with its entry and exit ticks, the ticks around expiry and both transactions', async () => {
    [winner, loser] = await Promise.all([newFundedWallet(), newFundedWallet()]);
    const [up, down] = await Promise.all([bet(winner, 'UP'), bet(loser, 'DOWN')]);
    winnerBets.push(up.id);

    const open = await api('GET', `/api/bets/${up.id}`);
    expect(open.status).toBe(200);
    expect(open.body).toMatchObject({
      id: up.id,
      bettor: winner,
      side: 'UP',
      amountUnits: '100000000',
      entryPrice: up.entryPrice,
      status: 0,
      statusName: 'open',
      exitPrice: 0,
    });
    expect(open.body.evidence.exit).toBeNull();
    expect(open.body.evidence.placeTx).toBe(up.tx);

    const won = await settled(up.id);
    expect(won).toMatchObject({ status: 1, statusName: 'payout_done', netUnits: '30000000' });
    const ev = won.evidence;
    expect(ev.entry).toMatchObject({ price: up.entryPrice, source: 'nats:market.price.solusdt' });
    expect(published.some((t) => t.e8 === ev.entry.price && t.ts === ev.entry.ts)).toBe(true);
    // the exit price is a real tick, the last one at or before expiry
    expect(ev.exit).toMatchObject({ price: won.exitPrice, rule: 'last_tick_at_or_before_expiry' });
    expect(ev.exit.ts).toBeLessThanOrEqual(won.expireTime * 1000);
    expect(published.some((t) => t.e8 === ev.exit.price && t.ts === ev.exit.ts)).toBe(true);
    const lastBefore = published.filter((t) => t.ts <= won.expireTime * 1000).at(-1);
    expect(ev.exit.ts).toBe(lastBefore?.ts);
    expect(ev.ticks.length).toBeGreaterThan(3);
    for (const t of ev.ticks) expect(Math.abs(t.ts - won.expireTime * 1000)).toBeLessThanOrEqual(5_000);
    expect(ev.ticks).toContainEqual({ price: ev.exit.price, ts: ev.exit.ts });
    expect(ev.placeTx).toBe(up.tx);
    expect(typeof ev.closeTx).toBe('string');
    expect(ev.closeTx).not.toBe(up.tx);
    expect(ev).toMatchObject({ prevId: null, nextId: null });

    const lost = await settled(down.id);
    expect(lost).toMatchObject({ status: 2, statusName: 'house_won', netUnits: '-100000000' });
  });

  it('answers 404 for an unknown bet and 400 for a malformed id', async () => {
    const unknown = await api('GET', '/api/bets/987654321');
    expect(unknown.status).toBe(404);
    expect(typeof unknown.body.error).toBe('string');
    for (const bad of ['abc', '-1', '1.5', '99999999999999999999999']) {
      const r = await api('GET', `/api/bets/${bad}`);
      expect(r.status).toBe(400);
      expect(typeof r.body.error).toBe('string');
    }
  });

  it("pages a bettor's bets newest first", async () => {
    for (let i = 0; i < 2; i++) {
      const b = await bet(winner, 'UP');
      winnerBets.push(b.id);
      await settled(b.id);
    }
    const newestFirst = [...winnerBets].reverse();
    const first = await api('GET', `/api/bets?address=${winner}&limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.items.map((b: { id: string }) => b.id)).toEqual(newestFirst.slice(0, 2));
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await api('GET', `/api/bets?address=${winner}&limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.items.map((b: { id: string }) => b.id)).toEqual(newestFirst.slice(2));
    expect(second.body.nextCursor).toBeNull();
    const all = await api('GET', `/bets?address=${winner}`);
    expect(all.body.items).toHaveLength(3);
    expect(all.body.nextCursor).toBeNull();
    for (const q of [
      '',
      '?address=nope',
      `?address=${winner}&limit=0`,
      `?address=${winner}&limit=101`,
      `?address=${winner}&limit=x`,
      `?address=${winner}&cursor=abc`,
    ]) {
      const r = await api('GET', `/api/bets${q}`);
      expect(r.status, q).toBe(400);
      expect(typeof r.body.error).toBe('string');
    }
  });

  it("reclaims settled bets older than the bettor's latest on chain (rent back to the payer); the history still answers them", async () => {
    const accountOf = async (address: string) => {
      const r = await fetchJson(stack.chainUrl, 'POST', '/', { jsonrpc: '2.0', id: 1, method: 'getAccountInfo', params: [address, { encoding: 'base64' }] });
      return r.body.result.value as { data: [string, string] } | null;
    };
    const bettor = new PublicKey(winner);
    const betAccounts = [0n, 1n, 2n].map((seq) => betAddress({ bettor: winner, seq }).toBase58());
    await expect
      .poll(async () => Promise.all(betAccounts.map(async (a) => (await accountOf(a)) !== null)), { timeout: 15_000, interval: 250 })
      .toEqual([false, false, true]);
    const state = await accountOf(bettorAddress(bettor).toBase58());
    expect(decodeBettorState(Buffer.from(state!.data[0], 'base64'))).toMatchObject({ betCount: 3n, reclaimed: 2n, openBetId: null });
    for (const id of winnerBets) expect((await api('GET', `/api/bets/${id}`)).body).toMatchObject({ id, status: 1 });
  });

  it('ranks bettors by net result, highest first', async () => {
    const r = await api('GET', '/api/leaderboard?window=24h');
    expect(r.status).toBe(200);
    const rows = r.body as Array<{ address: string; net: string; bets: number; wins: number; losses: number }>;
    const nets = rows.map((x) => BigInt(x.net));
    expect([...nets].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0))).toEqual(nets);
    expect(rows.find((x) => x.address === winner)).toMatchObject({ net: '90000000', bets: 3, wins: 3, losses: 0 });
    expect(rows.find((x) => x.address === loser)).toMatchObject({ net: '-100000000', bets: 1, wins: 0, losses: 1 });
    expect(rows.findIndex((x) => x.address === winner)).toBeLessThan(rows.findIndex((x) => x.address === loser));
    expect((await api('GET', '/api/leaderboard')).body).toEqual(r.body);
    for (const w of ['abc', '0h', '24', '400d']) expect((await api('GET', `/api/leaderboard?window=${w}`)).status, w).toBe(400);
  });
});
