/**
 * A burst of bets as a herd sends them (docs/decisions.md#placements-are-admitted-not-queued):
 * `count` funded custodial wallets each send one `POST /api/bet` on a connection of its own, all at
 * once, optionally with a busy-loop process beside the stack (a noisy neighbour on one core); then
 * every answer is checked against the chain (docs/gateway-api.md#profile-a-post-apibet): a 200 names
 * a bet on chain of its own bettor; a 500 pending names its transaction; a 503 carries Retry-After
 * and its wallet has no new bet on chain; a 409 names a bet on chain; "unreachable" is false while
 * the chain answers; and every new bet on chain is accounted for by a 200 or a pending answer.
 * Shared by the burst test (test/gateway-a/bet-burst.test.ts) and `npm run bench -- gateway-bets`.
 *
 * @example
 *   const stack = await burstStack('embedded', { GW_EXPIRY_SECONDS: '3' });
 *   const wallets = await stack.fundedWallets(500);
 *   const result = await betBurst(stack, wallets, { neighbour: true });
 *   expect(result.falseAnswers).toEqual([]);
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { fundedWallets } from './funded-wallets.ts';
import { JsonClient } from './json-client.ts';
import { rmSync } from 'node:fs';
import type { BetAccount } from '../../adapters/chain/port.ts';
import { programAccountsNow, rpc } from './chain-bets.ts';
import { freePort, startRedisServer, startService, stopChild, type RunningServer, type ServiceProcess } from './servers.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { tempDir } from './temp-dir.ts';

/** One answer of the burst. */
export interface BurstAnswer {
  address: string;
  status: number;
  body: Record<string, unknown> | null;
  retryAfter: string | null;
  /** ms from the burst's start to this answer */
  ms: number;
}

/** What a burst gave and what the chain says of it. */
export interface BurstResult {
  answers: BurstAnswer[];
  /** answers by class: 200, 409, pending (500 with tx), 503 with Retry-After, and any other */
  classes: { ok: number; conflict: number; pending: number; shed: number; other: number };
  /** answers that say something the chain contradicts, each with why */
  falseAnswers: string[];
  /** pending answers whose transaction landed */
  pendingLanded: number;
  /** new bets on chain */
  landed: number;
  /** answer times, ms: median and p99 */
  p50: number;
  p99: number;
  /** seconds from the first request to the last answer */
  seconds: number;
}

/** A stack under test: where its gateway and chain listen. */
export interface BurstStack {
  kind: 'embedded' | 'chain+redis';
  base: string;
  /** the data dir both processes use (its keys: the admin's, the price signer's) */
  dataDir: string;
  chainUrl: string;
  /** pid of the process that runs the gateway (and, embedded, the chain) */
  gatewayPid: number;
  fundedWallets(count: number): Promise<string[]>;
  output(): string;
  stop(): Promise<void>;
}

const percentile = (xs: number[], p: number): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

/** Makes and funds `count` custodial wallets through the gateway at `base`. */
async function walletsOf(base: string, count: number): Promise<string[]> {
  const client = new JsonClient(base, 32);
  try {
    return await fundedWallets(client, count);
  } finally {
    client.close();
  }
}

/** Waits until the gateway serves a price (its feed runs). */
async function priced(base: string): Promise<void> {
  const client = new JsonClient(base, 1, 0, false);
  const deadline = Date.now() + 60_000;
  try {
    while ((await client.call('GET', '/api/price').catch(() => ({ status: 0 }))).status !== 200) {
      if (Date.now() > deadline) throw new Error('no price within 60 s');
      await sleep(200);
    }
  } finally {
    client.close();
  }
}

/**
 * Starts `npm start`'s default stack (embedded chain, file stores; `embedded`) or the chain process
 * with Redis and a gateway process (`chain+redis`), each on a fresh data dir and free ports, with
 * `env` on top (short windows, reclaims off so every bet stays on chain to be audited).
 */
export async function burstStack(kind: BurstStack['kind'], env: Record<string, string> = {}): Promise<BurstStack> {
  const dataDir = tempDir('burst-');
  const gatewayPort = await freePort();
  const chainPort = await freePort();
  const common = { DATA_DIR: dataDir, GW_RECLAIM_BETS: 'off', LOG_LEVEL: 'warn', NATS_URL: '', ...env };
  const parts: Array<{ stop(): Promise<void> }> = [];
  const stopAll = async () => {
    for (const p of parts.reverse()) await p.stop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    let gateway: ServiceProcess;
    if (kind === 'embedded') {
      const exchange = await freePort();
      const mgmt = await freePort();
      gateway = await startService(
        'start',
        {
          ...common,
          GATEWAY_PORT: String(gatewayPort),
          CHAIN_PORT: String(chainPort),
          EXCHANGE_PORT: String(exchange),
          EXCHANGE_MGMT_PORT: String(mgmt),
          REDIS_URL: '',
          SOLANA_RPC_URL: '',
        },
        mgmt,
        120_000,
      );
      parts.push(gateway);
    } else {
      const redis: RunningServer = await startRedisServer();
      parts.push(redis);
      // signed prices are set by the admin once the contract is initialised: the chain initialises it then
      const init: Record<string, string> = env.SIGNED_PRICES === 'on' ? { GW_INIT: 'on' } : {};
      const chain = await startService('chain', { ...common, ...init, CHAIN_PORT: String(chainPort) }, chainPort + 1, 120_000);
      parts.push(chain);
      gateway = await startService(
        'gateway',
        { ...common, GATEWAY_PORT: String(gatewayPort), REDIS_URL: redis.url, SOLANA_RPC_URL: `http://127.0.0.1:${chainPort}` },
        gatewayPort,
        120_000,
      );
      parts.push(gateway);
    }
    const base = `http://127.0.0.1:${gatewayPort}`;
    await priced(base);
    return {
      kind,
      base,
      dataDir,
      chainUrl: `http://127.0.0.1:${chainPort}`,
      gatewayPid: gateway.child.pid as number,
      fundedWallets: (count) => walletsOf(base, count),
      output: () => gateway.output(),
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/** A process spinning on one core until stopped: the noisy neighbour of a shared host. */
export function busyLoop(): { stop(): Promise<void> } {
  const child: ChildProcess = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
  return { stop: () => stopChild(child, 'SIGKILL') };
}

/** Whether each signature landed (a confirmed status without error). */
async function landedSignatures(chainUrl: string, signatures: string[]): Promise<Set<string>> {
  const landed = new Set<string>();
  for (let at = 0; at < signatures.length; at += 256) {
    const batch = signatures.slice(at, at + 256);
    const r = await rpc<{ value: Array<{ err: unknown } | null> }>(chainUrl, 'getSignatureStatuses', [batch, { searchTransactionHistory: true }]);
    r.value.forEach((st, i) => {
      if (st && st.err === null) landed.add(batch[i] as string);
    });
  }
  return landed;
}

/** How long the audit waits for the placements still landing after the burst to end (a blockhash lives about a minute). */
const LANDING_MS = 90_000;

/** Waits until the gateway has no transaction left landing (`gateway_tx_pending`, docs/operations.md#metrics). */
async function nothingLanding(base: string): Promise<void> {
  const agent = new Agent({ keepAlive: false });
  const deadline = Date.now() + LANDING_MS;
  for (;;) {
    const text = await new Promise<string>((resolve, reject) => {
      request(`${base}/metrics`, { agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        res.on('error', reject);
      })
        .on('error', reject)
        .end();
    });
    if (/^gateway_tx_pending 0$/m.test(text)) return;
    if (Date.now() > deadline) throw new Error(`transactions still landing ${LANDING_MS} ms after the burst`);
    await sleep(500);
  }
}

/** Bets of the program whose bettor is one of `wallets`, by id. */
async function betsOf(chainUrl: string, wallets: Set<string>): Promise<Map<string, BetAccount>> {
  const { bets } = await programAccountsNow(chainUrl);
  return new Map(bets.filter((b) => wallets.has(b.bettor)).map((b) => [b.id.toString(), b]));
}

/**
 * Sends one `POST /api/bet` per wallet, all at once, each on a connection of its own (with a busy
 * loop beside the stack when `neighbour`), then audits every answer against the chain.
 */
export async function betBurst(stack: BurstStack, wallets: string[], options: { neighbour?: boolean; amountUnits?: string } = {}): Promise<BurstResult> {
  const mine = new Set(wallets);
  const before = await betsOf(stack.chainUrl, mine);
  // a connection per bet: every player of the burst is a client of its own
  const client = new JsonClient(stack.base, wallets.length, 0, false);
  const neighbour = options.neighbour ? busyLoop() : null;
  let answers: BurstAnswer[];
  const started = performance.now();
  try {
    answers = await Promise.all(
      wallets.map(async (address, i) => {
        const body = { address, side: i % 2 ? 'DOWN' : 'UP', amountUnits: options.amountUnits ?? '100000000' };
        const a = await client.call('POST', '/api/bet', body).catch(() => ({ status: 0, body: null, retryAfter: null }));
        return { address, ...a, ms: performance.now() - started };
      }),
    );
  } finally {
    await neighbour?.stop();
    client.close();
  }
  const seconds = (performance.now() - started) / 1000;

  // what was sent has landed or can no longer land once the gateway has nothing left landing
  const pendingTx = answers.filter((a) => a.status === 500 && a.body?.pending === true).map((a) => String(a.body?.tx));
  await nothingLanding(stack.base);
  const after = await betsOf(stack.chainUrl, mine);
  const landedPending = await landedSignatures(stack.chainUrl, pendingTx);
  const fresh = [...after.values()].filter((b) => !before.has(b.id.toString()));
  const freshOf = new Map<string, BetAccount[]>();
  for (const b of fresh) freshOf.set(b.bettor, [...(freshOf.get(b.bettor) ?? []), b]);

  const falseAnswers: string[] = [];
  const flagged = new Set<string>();
  const flag = (address: string, why: string) => {
    flagged.add(address);
    falseAnswers.push(why);
  };
  const classes = { ok: 0, conflict: 0, pending: 0, shed: 0, other: 0 };
  for (const a of answers) {
    const bets = freshOf.get(a.address) ?? [];
    const id = typeof a.body?.id === 'string' ? a.body.id : null;
    if (a.status === 200) {
      classes.ok++;
      if (!id || after.get(id)?.bettor !== a.address) flag(a.address, `200 for ${a.address} names bet ${id}, not on chain as its bet`);
    } else if (a.status === 409) {
      classes.conflict++;
      const open = a.body?.openBetId;
      // a 409 without openBetId is the vault's or the contract's state, not a bet
      if (open !== undefined && after.get(String(open))?.bettor !== a.address) flag(a.address, `409 for ${a.address} names ${String(open)}, not its bet`);
    } else if (a.status === 500 && a.body?.pending === true && typeof a.body.tx === 'string') {
      classes.pending++;
    } else if (a.status === 503 && a.retryAfter !== null) {
      classes.shed++;
      if (bets.length > 0) flag(a.address, `503 (not sent) for ${a.address}, whose bet ${bets[0]?.id} is on chain`);
    } else {
      classes.other++;
      if (a.status === 500)
        flag(a.address, `500 ${JSON.stringify(a.body)} for ${a.address} while the chain answers${bets.length > 0 ? ` (its bet ${bets[0]?.id} landed)` : ''}`);
      else flag(a.address, `${a.status} ${JSON.stringify(a.body)} for ${a.address}: not an answer a burst may get`);
    }
  }
  // every new bet is accounted for by its wallet's 200 or its landed pending answer
  const byAddress = new Map(answers.map((a) => [a.address, a]));
  for (const [bettor, bets] of freshOf) {
    if (flagged.has(bettor)) continue; // its answer is counted once, above
    const a = byAddress.get(bettor);
    const accounted = a?.status === 200 || (a?.status === 500 && a.body?.pending === true && landedPending.has(String(a.body.tx)));
    if (!accounted || bets.length > 1) falseAnswers.push(`${bets.length} new bet(s) of ${bettor} on chain, answered ${a?.status} ${JSON.stringify(a?.body)}`);
  }
  const times = answers.map((a) => a.ms);
  return {
    answers,
    classes,
    falseAnswers,
    pendingLanded: landedPending.size,
    landed: fresh.length,
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    seconds,
  };
}

/** Waits until none of the bets of `wallets` is open on chain (settled), so they may bet again. */
export async function settled(chainUrl: string, wallets: string[], timeoutMs = 90_000): Promise<void> {
  const mine = new Set(wallets);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = [...(await betsOf(chainUrl, mine)).values()].filter((b) => b.status === 0).length;
    if (open === 0) return;
    if (Date.now() > deadline) throw new Error(`${open} bets still open after ${timeoutMs} ms`);
    await sleep(500);
  }
}
