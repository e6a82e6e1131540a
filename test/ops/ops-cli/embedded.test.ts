/**
 * The operator CLI against the embedded DATA_DIR stores. Every command runs as a child process;
 * its `--json` output is what is checked.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openFileExchangeStore } from '../../../adapters/store/exchange/file.ts';
import { openGatewayJournal } from '../../../adapters/store/file/gateway-journal.ts';
import { openFileIntentStore } from '../../../adapters/store/intents/file.ts';
import type { BetEmittedEvent } from '../../../machines/bet-events.ts';
import type { GatewayEvent } from '../../../runtime/gateway/events/schemas.ts';
import { listenForRetryRequests } from '../../../runtime/gateway/settlement/retry-requests.ts';
import { startExchange } from '../../../bin/exchange-app.ts';
import { quietLog } from '../../support/quiet-log.ts';
import { runOps } from '../support.ts';
import { NO_CHAIN, betInput, downChain, betRuntime, pushFeed } from './fixtures.ts';
import { tempDir } from '../../support/temp-dir.ts';

describe('embedded stores in DATA_DIR', () => {
  const dir = tempDir('ops-data-');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the gateway journal and the exchange ledger files, and hands retries over through the request folder', async () => {
    const journal = openGatewayJournal<GatewayEvent, BetEmittedEvent>(join(dir, 'gateway', 'journal.log'));
    const chain = downChain();
    const runtime = await betRuntime(journal.snapshots, chain.effects);
    runtime.open(betInput('201', Math.floor(Date.now() / 1000) - 5));
    runtime.tick(Date.now());
    await expect.poll(() => chain.calls.priceExit).toBe(1);
    await runtime.settled();
    const retries = await listenForRetryRequests({ redis: null, prefix: 'gw:', dataDir: dir, retry: (id) => runtime.retryNow(id), log: quietLog, pollMs: 100 });

    const ledger = openFileExchangeStore(join(dir, 'exchange', 'ledger.log'));
    const feed = pushFeed();
    const exchange = await startExchange({ port: 0, mgmtPort: 0, bookMaxAgeMs: 30_000, feed, store: ledger, logger: quietLog });
    try {
      const res = await fetch(`http://127.0.0.1:${exchange.port}/api/v1/accounts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'ops-file', initialCash: '500' }),
      });
      const accountId = ((await res.json()) as { id: string }).id;
      const env = { DATA_DIR: dir, SOLANA_RPC_URL: NO_CHAIN };

      const bets = await runOps(['bets', '--stuck', '--json'], env);
      expect(bets.code, bets.stderr).toBe(0);
      expect(bets.json()).toEqual([expect.objectContaining({ id: '201', state: 'settling.pricingBackoff', attempt: 1 })]);
      const events = await runOps(['events', '--json'], env);
      expect(events.json()).toEqual([expect.objectContaining({ type: 'bet_open', id: '201', seq: 1 })]);

      // the transactions a gateway is landing, from the intent journal it keeps beside its journal
      const intents = openFileIntentStore(join(dir, 'gateway', 'intents.log'));
      await intents.put({ key: 'place_bet:B1', what: 'place_bet', signature: 'sig-1', wire: 'AA==', lastValidBlockHeight: 4242, since: Date.now() - 3_000 });
      await intents.put({ key: 'place_bet:B2', what: 'place_bet', signature: 'sig-2', wire: 'AA==', lastValidBlockHeight: 4243, since: Date.now() });
      await intents.remove('place_bet:B2', 'sig-2');
      const pending = await runOps(['intents', '--json'], env);
      expect(pending.code, pending.stderr).toBe(0);
      expect(pending.json()).toEqual([{ key: 'place_bet:B1', what: 'place_bet', signature: 'sig-1', lastValidBlockHeight: 4242, age: expect.any(Number) }]);
      expect(pending.json()[0].age).toBeGreaterThanOrEqual(3);
      intents.close();

      const retry = await runOps(['retry', '201', '--json'], env);
      expect(retry.code, retry.stderr).toBe(0);
      expect(retry.json()).toMatchObject({ ok: true, via: 'file', receivers: 1 });
      await expect.poll(() => chain.calls.priceExit, { timeout: 5_000 }).toBe(2);

      const accounts = await runOps(['accounts', '--json'], env);
      expect(accounts.json()).toEqual([expect.objectContaining({ id: accountId, name: 'ops-file', cash: '500.0000000000' })]);
      const check = await runOps(['journal', accountId, '--replay-check', '--json'], env);
      expect(check.code, check.stderr).toBe(0);
      expect(check.json()).toMatchObject({ ok: true, entries: 1 });
    } finally {
      await exchange.stop();
      await retries.stop();
      await runtime.stop();
      await journal.close();
    }

    // nobody listens any more: the request is refused, not left behind
    const orphan = await runOps(['retry', '201'], { DATA_DIR: dir });
    expect(orphan.code).not.toBe(0);
    expect(orphan.stderr).toMatch(/no running gateway/);
  });
});
