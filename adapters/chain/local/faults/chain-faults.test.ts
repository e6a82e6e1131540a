import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { Keypair } from '@solana/web3.js';
import { pino } from 'pino';
import WebSocket from 'ws';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { FaultChains, fund, post, sendWire, statuses, transfer } from '../../../../test/support/fault-chain.ts';
import { freePort, startService } from '../../../../test/support/servers.ts';
import { logCounters, zeroCounters } from './counters.ts';
import { CLUSTER_PRESET } from './profile.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { tempDir } from '../../../../test/support/temp-dir.ts';

const chains = new FaultChains();
afterAll(() => chains.removeAll());

describe('without a profile', () => {
  it('behaves as always: sends land at once, statuses show at once, no 429, sockets stay open', async () => {
    const chain = await chains.start(null);
    expect(chain.faults).toBeNull();
    const [payer, to] = [Keypair.generate(), Keypair.generate()];
    await fund(chain, payer);
    for (let i = 0; i < 20; i++) {
      const tx = await transfer(chain, payer, to, 1_000_000 + i);
      expect((await sendWire(chain, tx.wire)).result).toBe(tx.signature);
      expect((await statuses(chain, [tx.signature]))[0]).toMatchObject({ err: null });
    }
    const ws = new WebSocket(chain.wsUrl);
    let closed = false;
    ws.on('close', () => (closed = true));
    await new Promise((resolve) => ws.once('open', resolve));
    for (let i = 0; i < 30; i++) {
      const answer = await post(chain.url, { jsonrpc: '2.0', id: i, method: 'getSlot' });
      expect([answer.status, answer.retryAfter]).toEqual([200, null]);
      await sleep(20);
    }
    expect(closed).toBe(false);
    ws.close();
  });
});

describe('the cluster preset', () => {
  it('switches every fault on, with the seed given', async () => {
    const chain = await chains.start('cluster,seed=7');
    expect(chain.faults?.profile).toEqual({ ...CLUSTER_PRESET, pubsubSilentMs: 0, seed: 7 });
    expect(chain.faults?.counters()).toEqual(zeroCounters());
  });

  it('picks a seed when none is given, so the run can be repeated', async () => {
    const chain = await chains.start({ drop: 0.1 });
    expect(chain.faults?.profile.seed).toEqual(expect.any(Number));
  });
});

describe('fault counters', () => {
  it('are logged at info every period while a profile is on', async () => {
    await chains.stop(); // no chain runs on the faked timers
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const lines: Array<{ level: number; msg: string; faults: object }> = [];
      const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
      const counters = zeroCounters();
      const stop = logCounters(counters, log, 5_000);
      counters.dropped = 3;
      vi.advanceTimersByTime(5_000);
      counters.throttled = 2;
      vi.advanceTimersByTime(5_000);
      stop();
      vi.advanceTimersByTime(20_000);
      expect(lines).toEqual([
        expect.objectContaining({ level: 30, msg: 'chain faults injected so far', faults: { ...zeroCounters(), dropped: 3 } }),
        expect.objectContaining({ level: 30, faults: { ...zeroCounters(), dropped: 3, throttled: 2 } }),
      ]);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('npm run chain with CHAIN_FAULTS', () => {
  it('refuses a bad profile at start with one line naming the variable', async () => {
    const dataDir = tempDir('chain-faults-bad-');
    const port = await freePort(); // were the profile not refused, the chain would not take the default port
    try {
      const r = spawnSync(process.execPath, ['--import', 'tsx', 'bin/chain.ts'], {
        env: { ...process.env, DATA_DIR: dataDir, CHAIN_PORT: String(port), CHAIN_FAULTS: 'drop=0.3,burst-429=5/x' },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(r.status).toBe(1);
      expect(r.stderr.trim()).toMatch(/^.*bad configuration: CHAIN_FAULTS: burst-429 must be burstMs\/everyMs.*$/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 40_000);

  it('runs the profile in its own process: logged at start, 429 bursts on its port', async () => {
    const port = await freePort();
    const chain = await startService('chain', { CHAIN_PORT: String(port), CHAIN_FAULTS: 'burst-429=300/1000,seed=3' }, port, 60_000);
    try {
      const seen = new Set<number>();
      for (let i = 0; i < 100 && seen.size < 2; i++) {
        seen.add((await post(`http://127.0.0.1:${port}`, { jsonrpc: '2.0', id: i, method: 'getSlot' })).status);
        await sleep(30);
      }
      expect([...seen].sort()).toEqual([200, 429]);
      expect(chain.output()).toMatch(/"faults":"burst-429=300\/1000,seed=3".*"msg":"chain fault profile on"/);
    } finally {
      await chain.stop();
    }
  }, 90_000);
});
