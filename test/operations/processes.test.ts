/**
 * The processes as a new user meets them (docs/operations.md#processes): `--help` on every entry point
 * lists its variables with their defaults and starts nothing; a bad variable, a busy port or a
 * data dir held by another process stops it with one line naming the problem (exit 1, no stack
 * trace); parts started in any order wait for each other; `npm start` stops on SIGTERM sent to
 * npm itself; log lines carry one `component`; services listen on 127.0.0.1 by default.
 */
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call } from '../support/gateway-stack.ts';
import { freePort, portOpen, startService, stopChild, waitForPort, type ServiceProcess } from '../support/servers.ts';
import { tempDir } from '../support/temp-dir.ts';

const dataDirFor = (name: string) => tempDir(`${name}-`);
const running: ServiceProcess[] = [];
afterAll(async () => {
  await Promise.all(running.map((p) => p.stop()));
});

/** Runs `bin/<script>.ts` to its end (bounded) and returns what it printed and its exit code. */
function runToEnd(script: string, env: Record<string, string>, args: string[] = [], timeoutMs = 60_000) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', `bin/${script}.ts`, ...args], {
    env: { ...process.env, LOG_LEVEL: 'info', DATA_DIR: dataDirFor(script), ...env },
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

/** Holds `port` on 127.0.0.1 with a plain TCP server. */
async function occupy(port: number): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}

/** Every process below `pid` (children, their children, ...). */
function descendants(pid: number): number[] {
  const children = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
    .stdout.trim()
    .split('\n')
    .filter(Boolean)
    .map(Number);
  return children.flatMap((c) => [c, ...descendants(c)]);
}

const SCRIPTS = [
  ['gateway', ['GATEWAY_PORT', 'GW_PROFILE', 'SOLANA_RPC_URL', 'REDIS_URL', 'NATS_URL', 'HOST', 'LOG_LEVEL']],
  ['exchange', ['EXCHANGE_PORT', 'EXCHANGE_MGMT_PORT', 'EXCHANGE_FEED', 'REDIS_URL', 'DATA_DIR', 'HOST', 'LOG_LEVEL']],
  ['chain', ['CHAIN_PORT', 'DATA_DIR', 'GW_INIT', 'CHAIN_FAULTS', 'LOG_LEVEL']],
  ['feed', ['NATS_URL', 'LOG_LEVEL']],
  ['start', ['GATEWAY_PORT', 'EXCHANGE_PORT', 'CHAIN_PORT', 'DATA_DIR', 'LOG_LEVEL']],
] as const;

describe('--help', () => {
  it.each(SCRIPTS)('bin/%s.ts lists its variables with defaults and starts nothing', (script, vars) => {
    const r = runToEnd(script, {}, ['--help'], 30_000);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^usage: npm (start|run \w+)/);
    for (const name of vars) expect(r.stdout, name).toMatch(new RegExp(`^  ${name}\\s`, 'm'));
    expect(r.stdout).not.toMatch(/"level"/); // nothing was started, so nothing logged
  });

  it('an unknown argument is refused (configuration is by environment)', () => {
    const r = runToEnd('gateway', {}, ['--port=9000'], 30_000);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown argument "--port=9000"/);
  });
});

describe('bad configuration', () => {
  it.each([
    ['gateway', 'LOG_LEVEL', 'verbose'],
    ['gateway', 'SOLANA_RPC_URL', 'notaurl'],
    ['gateway', 'REDIS_URL', 'localhost:6379'],
    ['gateway', 'NATS_URL', 'not a url'],
    ['gateway', 'GATEWAY_PORT', '70000'],
    ['exchange', 'LOG_LEVEL', 'verbose'],
    ['exchange', 'EXCHANGE_FEED', 'kraken'],
    ['chain', 'CHAIN_PORT', 'x'],
    ['chain', 'CHAIN_FAULTS', 'drop=2'],
    ['start', 'CHAIN_FAULTS', 'cluster,jitter=5'],
    ['start', 'GW_PROFILE', 'C'],
  ])('%s with %s=%s exits 1 with one line naming the variable', (script, name, value) => {
    const r = runToEnd(script, { [name]: value }, [], 30_000);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`bad configuration: ${name}:`);
    expect(r.stdout + r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });
});

describe('a busy port', () => {
  it.each([
    ['gateway', 'GATEWAY_PORT'],
    ['exchange', 'EXCHANGE_PORT'],
    ['exchange', 'EXCHANGE_MGMT_PORT'],
    ['chain', 'CHAIN_PORT'],
  ])(
    '%s exits 1 saying %s is in use (never shares it)',
    async (script, variable) => {
      const port = await freePort();
      const holder = await occupy(port);
      try {
        const env: Record<string, string> = { [variable]: String(port), NATS_URL: '', REDIS_URL: '' };
        if (script === 'exchange') for (const other of ['EXCHANGE_PORT', 'EXCHANGE_MGMT_PORT']) if (other !== variable) env[other] = String(await freePort());
        const r = runToEnd(script, env, [], 90_000);
        expect(r.code).toBe(1);
        expect(r.stderr.trim()).toMatch(
          new RegExp(`^[\\w-]+: port ${port} is in use \\(127\\.0\\.0\\.1:${port}\\); stop the other process or choose another port$`),
        );
      } finally {
        holder.close();
      }
    },
    120_000,
  );
});

describe('one data dir, one process', () => {
  it("a second embedded gateway on the same DATA_DIR exits naming the first one's pid", async () => {
    const dataDir = dataDirFor('shared');
    const port = await freePort();
    const first = await startService(
      'gateway',
      { DATA_DIR: dataDir, GATEWAY_PORT: String(port), NATS_URL: '', REDIS_URL: '', SOLANA_RPC_URL: '' },
      port,
      120_000,
    );
    running.push(first);
    const r = runToEnd('gateway', { DATA_DIR: dataDir, GATEWAY_PORT: String(await freePort()), NATS_URL: '', REDIS_URL: '', SOLANA_RPC_URL: '' }, [], 60_000);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`DATA_DIR ${dataDir} is in use by another gateway process (pid ${first.child.pid})`);
  }, 180_000);
});

describe('a data dir of the old one-key layout', () => {
  it.each(['chain', 'gateway'])('%s refuses it with one line saying how to start fresh', (script) => {
    const dataDir = dataDirFor('old-layout');
    writeFileSync(join(dataDir, 'operator.json'), JSON.stringify(Array.from({ length: 64 }, () => 1)));
    const r = runToEnd(script, { DATA_DIR: dataDir, SOLANA_RPC_URL: '', NATS_URL: '', REDIS_URL: '', GATEWAY_PORT: '0', CHAIN_PORT: '0' }, [], 60_000);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/older version that used one key \(operator\.json\).*Start fresh: .*remove/);
  });
});

describe('boot order', () => {
  it('a gateway started before its chain says what it waits for, then works once the chain is up', async () => {
    const dataDir = dataDirFor('boot-order');
    const [chainPort, gwPort] = [await freePort(), await freePort()];
    const gateway = spawn(process.execPath, ['--import', 'tsx', 'bin/gateway.ts'], {
      env: {
        ...process.env,
        LOG_LEVEL: 'info',
        DATA_DIR: dataDir,
        GATEWAY_PORT: String(gwPort),
        SOLANA_RPC_URL: `http://127.0.0.1:${chainPort}`,
        NATS_URL: '',
        REDIS_URL: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    gateway.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await expect.poll(() => out, { timeout: 30_000 }).toMatch(/waiting for the relayer key .*start the chain first/);
      expect(gateway.exitCode).toBeNull();
      expect(await portOpen(gwPort)).toBe(false);
      const chain = await startService('chain', { DATA_DIR: dataDir, CHAIN_PORT: String(chainPort) }, chainPort, 120_000);
      running.push(chain);
      await waitForPort(gwPort, 60_000, 'the gateway');
      expect(out).toMatch(/is reachable; going on/);
      // the chain's genesis is known: the faucet works without a restart
      const wallet = await call(`http://127.0.0.1:${gwPort}`, 'POST', '/api/wallet', {});
      const grant = await call(`http://127.0.0.1:${gwPort}`, 'GET', `/api/faucet/${wallet.body.address}`);
      expect(grant.status).toBe(200);
    } finally {
      await stopChild(gateway);
    }
  }, 180_000);
});

describe('npm start', () => {
  it('stops the whole stack on SIGTERM sent to npm itself, ending with "stack stopped"', async () => {
    const dataDir = dataDirFor('npm-start');
    const ports = { GATEWAY_PORT: await freePort(), EXCHANGE_PORT: await freePort(), EXCHANGE_MGMT_PORT: await freePort(), CHAIN_PORT: await freePort() };
    const npm = spawn('npm', ['start'], {
      env: {
        ...process.env,
        LOG_LEVEL: 'info',
        DATA_DIR: dataDir,
        NATS_URL: '',
        REDIS_URL: '',
        SOLANA_RPC_URL: '',
        ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    npm.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
    await waitForPort(ports.EXCHANGE_MGMT_PORT, 120_000, 'npm start');
    const stack = descendants(npm.pid!);
    expect(stack.length).toBeGreaterThan(0);
    const started = Date.now();
    npm.kill('SIGTERM');
    const code = await exited;
    await expect.poll(async () => (await Promise.all(Object.values(ports).map((p) => portOpen(p)))).some(Boolean), { timeout: 10_000 }).toBe(false);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(code).toBe(0);
    expect(out).toContain('"msg":"stack stopped"');
    for (const pid of stack) expect(() => process.kill(pid, 0), `process ${pid} of the stack still runs`).toThrow();
  }, 180_000);
});

describe('what a gateway prints and where it listens', () => {
  it('logs JSON lines with one component each, and listens on 127.0.0.1 unless HOST says otherwise', async () => {
    const port = await freePort();
    const gw = await startService('gateway', { GATEWAY_PORT: String(port), NATS_URL: '', REDIS_URL: '', SOLANA_RPC_URL: '' }, port, 120_000);
    running.push(gw);
    await call(`http://127.0.0.1:${port}`, 'GET', '/api/state');
    const lines = gw
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'));
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines) expect(line.match(/"component":/g)?.length ?? 0, line).toBeLessThanOrEqual(1);
    expect(gw.output()).toMatch(/"host":"127\.0\.0\.1".*gateway listening/);
    const external = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal);
    if (external) expect(await portOpen(port, external.address)).toBe(false);
  }, 180_000);
});
