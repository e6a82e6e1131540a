/**
 * Durability of the local chain (docs/architecture.md#the-local-chain: state is on disk after every
 * transaction): SIGKILL of the chain process in the middle of a stream of bets, restart on the same
 * data dir — every transaction the adapter saw confirmed is still there, the genesis hash is the
 * same, and the chain (and the deployed program) carries on.
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { Keypair } from '@solana/web3.js';
import { loadLocalChainInfo, loadOrCreateRoleKeys } from '../../adapters/chain/local/data-dir.ts';
import { ChainUnavailable, OutcomeUnknown, type Placed } from '../../adapters/chain/port.ts';
import { RpcChain } from '../../adapters/chain/rpc-chain/index.ts';
import { freePort, startService, type ServiceProcess } from '../support/servers.ts';
import { untilUnix } from './support.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { tempDir } from '../support/temp-dir.ts';

const STAKE = 200_000_000n;
const PRICE = 150_00000000n;

describe('local chain killed with SIGKILL mid-stream', () => {
  const dataDir = tempDir('chain-crash-');
  let proc: ServiceProcess | null = null;
  afterAll(async () => {
    await proc?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every confirmed transaction and carries on after a restart', async () => {
    const port = await freePort();
    const env = { DATA_DIR: dataDir, CHAIN_PORT: String(port), GW_EXPIRY_SECONDS: '2' };
    proc = await startService('chain', env, port);
    const info = loadLocalChainInfo(dataDir);
    if (!info) throw new Error('chain did not write its info');
    const roles = loadOrCreateRoleKeys(dataDir);
    const keys = { relayer: roles.relayer, mintAuthority: roles['mint-authority'] };
    const url = `http://127.0.0.1:${port}`;
    const chain = new RpcChain({ url, keys, knownLocalGenesis: [info.genesisHash], timeoutMs: 2_000, pollMs: 20 });

    const bettors = Array.from({ length: 24 }, () => Keypair.generate());
    const funded: Keypair[] = [];
    const placed: { bettor: Keypair; bet: Placed }[] = [];
    let killed = false;
    const failures: unknown[] = [];
    // four concurrent senders: faucet then place, one bettor after another, until the chain dies
    const senders = [0, 1, 2, 3].map(async (w) => {
      for (let i = w; i < bettors.length; i += 4) {
        const bettor = bettors[i]!;
        try {
          await chain.faucet(bettor.publicKey);
          funded.push(bettor);
          placed.push({ bettor, bet: await chain.placeBet({ stake: { kind: 'signer', bettor }, side: 'UP', amount: STAKE, entryPrice: PRICE }) });
        } catch (err) {
          failures.push(err);
          if (killed) return;
          throw err;
        }
      }
    });
    const killer = (async () => {
      while (placed.length < 8) await sleep(5);
      killed = true;
      proc!.child.kill('SIGKILL');
    })();
    await Promise.all([...senders, killer]);
    await new Promise<void>((r) => (proc!.child.exitCode !== null || proc!.child.signalCode !== null ? r() : proc!.child.once('exit', () => r())));
    expect(proc.child.signalCode).toBe('SIGKILL');
    expect(placed.length).toBeGreaterThanOrEqual(8);
    expect(placed.length).toBeLessThan(bettors.length); // the kill really interrupted the stream
    // a send the chain took just before it died is an unknown outcome (docs/architecture.md#landing-transactions), the rest unavailable
    for (const f of failures) expect(f instanceof ChainUnavailable || f instanceof OutcomeUnknown, String(f)).toBe(true);

    proc = await startService('chain', env, port);
    chain.close();
    const after = new RpcChain({ url, keys, knownLocalGenesis: [info.genesisHash], pollMs: 20 });
    expect(await after.genesisHash()).toBe(info.genesisHash);
    expect(loadLocalChainInfo(dataDir)).toEqual(info);
    expect(proc.output()).toMatch(/"replayed":[1-9]/); // the journal written before the kill was replayed

    for (const bettor of funded) {
      const bal = await after.balances(bettor.publicKey);
      expect(bal.lamports).toBeGreaterThanOrEqual(5_000_000_000n);
      expect(bal.tokenUnits).toBeGreaterThanOrEqual(10_000_000_000n - STAKE);
    }
    const statuses = await after.rpc.call(
      'getSignatureStatuses',
      [placed.map((p) => p.bet.signature)],
      v.object({ value: v.array(v.nullable(v.object({ err: v.unknown() }))) }),
    );
    expect(statuses.value.every((s) => s !== null && s.err === null)).toBe(true);
    for (const { bettor, bet } of placed) {
      expect(await after.readBet(bet.bet)).toMatchObject({ id: bet.bet.id, bettor: bettor.publicKey.toBase58(), amount: STAKE, status: 0 });
      expect((await after.readBettorState(bettor.publicKey))?.openBetId).toBe(bet.bet.id);
    }
    const open = new Set((await after.scanOpenBets()).map((b) => b.id));
    for (const { bet } of placed) expect(open.has(bet.bet.id)).toBe(true);

    // the chain carries on: the program still runs (close a pre-crash bet, place new ones)
    const first = placed[0]!;
    await untilUnix(first.bet.bet.expireTime);
    expect((await after.closeBet(first.bet.bet, PRICE + 1n)).status).toBe(1);
    const fresh = Keypair.generate();
    await after.faucet(fresh.publicKey);
    const next = await after.placeBet({ stake: { kind: 'signer', bettor: fresh }, side: 'DOWN', amount: STAKE, entryPrice: PRICE });
    expect(next.bet.id).toBeGreaterThan(placed.reduce((m, p) => (p.bet.bet.id > m ? p.bet.bet.id : m), 0n));
    after.close();
  });
});
