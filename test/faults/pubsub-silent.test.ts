/**
 * A PubSub socket that stays open and goes silent (docs/architecture.md#the-chain-mirror): the
 * local chain's fault profile (`pubsub-silent-ms`, docs/operations.md#a-fault-profile) leaves every
 * open subscription socket open and sends nothing more on it, every 10 s, while four wallets bet
 * in loops and the test moves a watched wallet's SOL balance on the chain behind the gateway's
 * back, every 2.5 s. The gateway pings a quiet socket and drops it once its pings go unanswered,
 * so:
 * - every change of the balance is answered by `GET /api/balance` within the ping deadline (plus
 *   a reconnect and a re-sync), or the read is refused with 503 meanwhile: never the old value
 *   for longer;
 * - every bet is answered truthfully: each 200 is on chain as answered, every bet on chain was
 *   answered 200 or pending with its transaction, and none is "the chain node is unreachable"
 *   (the chain answered every call).
 */
import * as v from 'valibot';
import { Keypair } from '@solana/web3.js';
import { afterAll, describe, expect, it } from 'vitest';
import { PUBSUB_MAX_MISSED_PONGS, PUBSUB_PING_MS } from '../../adapters/chain/pubsub.ts';
import { FaultWorld, request, sleep } from '../support/fault-world.ts';
import { logLines } from '../support/gateway-log.ts';

const SILENT_EVERY_MS = 10_000;
/** a silent socket is noticed within this (adapters/chain/pubsub.ts) */
const PING_DEADLINE_MS = (PUBSUB_MAX_MISSED_PONGS + 2) * PUBSUB_PING_MS;
/** then the socket is opened again, renewed and the mirror read again: a moment on a loaded box */
const RESYNC_SLACK_MS = 3_000;
const AIRDROP_LAMPORTS = 1_000;

describe('a PubSub socket that goes silent', () => {
  let world: FaultWorld | undefined;
  afterAll(() => world?.stopKeepingLog());

  it('is noticed within the ping deadline: reads answer fresh values or 503, never older ones, and bets are answered truthfully', async () => {
    world = await FaultWorld.start({ redis: false, wallets: 4, chainEnv: { CHAIN_FAULTS: `pubsub-silent-ms=${SILENT_EVERY_MS}` } });
    const w = world;
    const rpc = w.chainView().rpc;
    const watched = Keypair.generate().publicKey.toBase58();
    const lamportsOnChain = async () => (await rpc.call('getBalance', [watched, { commitment: 'confirmed' }], v.object({ value: v.number() }))).value;
    const lamportsRead = async () => {
      const r = await request(w.base, 'GET', `/api/balance/${watched}`);
      return { at: Date.now(), status: r.status, lamports: r.status === 200 ? (r.body.solLamports as number) : null };
    };
    // a rent-exempt account first, then small credits
    await rpc.call('requestAirdrop', [watched, 1_000_000_000], v.string());
    while ((await lamportsOnChain()) === 0) await sleep(20);
    expect((await lamportsRead()).status).toBe(200); // watched from now on

    const loop = w.startBettors();
    const reads: Array<Awaited<ReturnType<typeof lamportsRead>>> = [];
    let reading = true;
    const reader = (async () => {
      while (reading) {
        reads.push(await lamportsRead());
        await sleep(100);
      }
    })();
    // the chain's balance moves every 2.5 s for 3.5 silences; each change is known when the chain shows it
    const changes: Array<{ at: number; lamports: number }> = [];
    const endAt = Date.now() + 3.5 * SILENT_EVERY_MS;
    while (Date.now() < endAt) {
      const before = await lamportsOnChain();
      await rpc.call('requestAirdrop', [watched, AIRDROP_LAMPORTS], v.string());
      for (let now = await lamportsOnChain(); now === before; now = await lamportsOnChain()) await sleep(20);
      changes.push({ at: Date.now(), lamports: before + AIRDROP_LAMPORTS });
      await sleep(2_500);
    }
    await sleep(PING_DEADLINE_MS + RESYNC_SLACK_MS);
    reading = false;
    await reader;
    await w.stopBettors();

    // the fault happened, and the gateway noticed it (more than once)
    const silent = logLines(w.gateway.output()).filter((l) => l.msg.startsWith('chain subscriptions silent'));
    expect(silent.length, 'silences the gateway noticed').toBeGreaterThanOrEqual(2);

    // each change: every 200 read sent later than the deadline after it shows it (or a later one)
    const late: string[] = [];
    for (const change of changes) {
      const stale = reads.filter((r) => r.status === 200 && r.at - change.at > PING_DEADLINE_MS + RESYNC_SLACK_MS && r.lamports! < change.lamports);
      if (stale.length > 0)
        late.push(`${change.lamports} lamports (on chain at ${change.at}) still read as ${stale[0]!.lamports} ${stale[0]!.at - change.at} ms later`);
    }
    expect(late, 'balances read older than the ping deadline').toEqual([]);
    expect(reads.filter((r) => r.status !== 200 && r.status !== 503).map((r) => r.status)).toEqual([]);
    expect(reads.filter((r) => r.status === 200).length).toBeGreaterThan(reads.length / 2);

    // bets: answered truthfully
    const bets = await w.settledOnChain(60_000);
    const onChain = new Map(bets.map((b) => [b.id.toString(), b]));
    const ok = loop.answers.filter((a) => a.status === 200);
    expect(ok.length).toBeGreaterThan(10);
    for (const a of ok) expect(onChain.get(String(a.body.id))?.bettor, `bet ${a.body.id} answered 200`).toBe(a.address);
    const unreachable = loop.answers.filter((a) => a.status === 500 && a.body?.pending !== true);
    expect(
      unreachable.map((a) => a.body),
      'answered "unreachable" while the chain answered',
    ).toEqual([]);
    const pending = loop.answers.filter((a) => a.status === 500 && a.body?.pending === true).length;
    expect(bets.length - ok.length, 'bets on chain not answered 200').toBeLessThanOrEqual(pending);
    for (const b of bets) expect(w.wallets).toContain(b.bettor);
  }, 150_000);
});
