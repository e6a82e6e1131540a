/**
 * `npm start` (bin/start.ts) on its embedded defaults (no Redis, no NATS, the in-process chain), on
 * free ports, in a fresh data dir removed by `stop()`; `env` adds to the defaults or overrides them
 * (short bet windows, signed prices, a chain fault profile).
 *
 * @example
 *   const stack = await startWholeStack({ GW_EXPIRY_SECONDS: '3', SIGNED_PRICES: 'on' });
 *   await fetch(`${stack.gateway}/api/state`);
 *   await stack.stop();
 */
import { rmSync } from 'node:fs';
import { freePort, startService, type ServiceProcess } from './servers.ts';
import { tempDir } from './temp-dir.ts';

export interface WholeStack {
  /** the gateway's base URL */
  gateway: string;
  /** the local chain's JSON-RPC URL */
  chainUrl: string;
  dataDir: string;
  process: ServiceProcess;
  stop(): Promise<void>;
}

export async function startWholeStack(env: Record<string, string> = {}): Promise<WholeStack> {
  const dataDir = tempDir('whole-stack-');
  const ports = { gateway: await freePort(), exchange: await freePort(), mgmt: await freePort(), chain: await freePort() };
  const process = await startService(
    'start',
    {
      DATA_DIR: dataDir,
      GATEWAY_PORT: String(ports.gateway),
      EXCHANGE_PORT: String(ports.exchange),
      EXCHANGE_MGMT_PORT: String(ports.mgmt),
      CHAIN_PORT: String(ports.chain),
      SMART_SETTLE_INTERVAL_MS: '200',
      NATS_URL: '',
      REDIS_URL: '',
      SOLANA_RPC_URL: '',
      ...env,
    },
    ports.exchange,
    120_000,
  );
  return {
    gateway: `http://127.0.0.1:${ports.gateway}`,
    chainUrl: `http://127.0.0.1:${ports.chain}`,
    dataDir,
    process,
    async stop() {
      await process.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
