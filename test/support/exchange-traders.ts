/**
 * Accounts of a real exchange trading over HTTP while a fault test breaks its Redis
 * (docs/operations.md#redis-with-sentinel): each account posts one market order after another with
 * a fresh Idempotency-Key and retries a 503 with the same key, as docs/exchange-api.md asks. Every
 * final answer is kept, so the test can hold the ledger against what clients were told.
 *
 * @example
 *   const traders = new Traders('kill', exchangeBase, accounts);
 *   // ... a failover ...
 *   await traders.stop();
 *   expect(await missingFromLedger(exchangeBase, accounts, traders.trades)).toEqual([]);
 */
import { spawn } from 'node:child_process';
import { request, sleep } from './client-request.ts';

/** One order's final answer (after retrying its 503s with the same Idempotency-Key). */
export interface Trade {
  accountId: string;
  key: string;
  status: number;
  body: any;
  /** 503 answers before the final one */
  retried: number;
  /** when the request that got the final answer was sent (unix ms) */
  sent: number;
}

/** How often a 503 is retried with the same key, and how long between. */
const RETRIES = 40;
const RETRY_AFTER_MS = 250;

/** Accounts that each post one market order after another with a fresh Idempotency-Key, until stopped. */
export class Traders {
  readonly trades: Trade[] = [];
  private running = true;
  private readonly loops: Promise<void>[];

  /** `pauseMs`: between an account's orders [20] */
  constructor(label: string, base: string, accounts: readonly string[], o: { pauseMs?: number } = {}) {
    this.loops = accounts.map(async (accountId, i) => {
      for (let n = 0; this.running; n++) {
        const key = `${label}-${i}-${n}`;
        const body = { symbol: 'SOLUSDT', side: n % 2 === 0 ? 'BUY' : 'SELL', qty: '0.01' };
        let retried = 0;
        for (;;) {
          const sent = Date.now();
          const r = await order(base, accountId, key, body);
          // a 503 (Redis away, or the write not confirmed on a replica) is retried with the same key, as the API asks
          if (r.status === 503 && retried < RETRIES && this.running) {
            retried++;
            await sleep(RETRY_AFTER_MS);
            continue;
          }
          this.trades.push({ accountId, key, status: r.status, body: r.body, retried, sent });
          break;
        }
        await sleep(o.pauseMs ?? 20);
      }
    });
  }

  /** The trades answered 201. */
  accepted(): Trade[] {
    return this.trades.filter((t) => t.status === 201);
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }
}

async function order(base: string, accountId: string, key: string, body: unknown): Promise<{ status: number; body: any }> {
  try {
    const res = await fetch(`${base}/api/v1/accounts/${accountId}/orders`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(8_000),
    });
    return { status: res.status, body: await res.json().catch(() => null) };
  } catch {
    return { status: 0, body: null };
  }
}

/** Creates `count` accounts named `<name>-<i>` with 100000 cash; their ids. */
export async function openAccounts(base: string, name: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const r = await request(base, 'POST', '/api/v1/accounts', { name: `${name}-${i}`, initialCash: '100000' });
    if (r.status !== 201) throw new Error(`account ${name}-${i} not created: ${r.status} ${JSON.stringify(r.body)}`);
    ids.push(r.body.id as string);
  }
  return ids;
}

/** The trades of `trades` answered 201 whose order is not in its account's orders (their keys). */
export async function missingFromLedger(base: string, accounts: readonly string[], trades: readonly Trade[]): Promise<string[]> {
  const missing: string[] = [];
  for (const accountId of accounts) {
    const listed = await request(base, 'GET', `/api/v1/accounts/${accountId}/orders?limit=1000`);
    if (listed.status !== 200) throw new Error(`orders of ${accountId}: ${listed.status} ${JSON.stringify(listed.body)}`);
    const ids = new Set((listed.body as { orderId: string }[]).map((o) => o.orderId));
    for (const t of trades) if (t.accountId === accountId && t.status === 201 && !ids.has(t.body.orderId)) missing.push(t.key);
  }
  return missing;
}

/** `npm run ops -- journal <id> --replay-check --json` with `env` (the Sentinels) instead of the inherited Redis and NATS. */
export function replayCheck(accountId: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const { REDIS_URL: _url, NATS_URL: _nats, ...inherited } = process.env;
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/ops.ts', 'journal', accountId, '--replay-check', '--json'], {
      env: { ...inherited, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => resolve({ code, out }));
  });
}
