/**
 * A chain that does not answer, or answers garbage, is ChainUnavailable (HTTP 500 upstream)
 * for every adapter operation — never a hang, never a crash.
 */
import { createServer as createHttpServer, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keypair } from '@solana/web3.js';
import { ChainUnavailable } from '../../adapters/chain/port.ts';
import { RpcChain } from '../../adapters/chain/rpc-chain/index.ts';
import { freePort } from '../support/servers.ts';

const roles = { relayer: Keypair.generate(), admin: Keypair.generate(), mintAuthority: Keypair.generate(), upgradeAuthority: Keypair.generate() };
const adapters: RpcChain[] = [];
const adapterAt = (url: string, timeoutMs = 300) => {
  const a = new RpcChain({ url, keys: roles, mint: Keypair.generate().publicKey, timeoutMs, confirmTimeoutMs: 1_000, pollMs: 50 });
  adapters.push(a);
  return a;
};
afterAll(() => {
  for (const a of adapters) a.close();
});

/** Every operation must fail with ChainUnavailable. */
async function everyOperationUnavailable(chain: RpcChain): Promise<void> {
  const bettor = Keypair.generate();
  const ops: [string, () => Promise<unknown>][] = [
    ['readConfig', () => chain.readConfig()],
    ['readBet', () => chain.readBet({ bettor: bettor.publicKey.toBase58(), seq: 0n })],
    ['readBettorState', () => chain.readBettorState(bettor.publicKey)],
    ['scanOpenBets', () => chain.scanOpenBets()],
    ['scanBetsOf', () => chain.scanBetsOf(bettor.publicKey)],
    ['initialize', () => chain.initialize({ minAmount: 1n, maxAmount: 2n, multiplierBps: 13_000n, expirySeconds: 15n, refundAfterSeconds: 300n })],
    ['placeBet', () => chain.placeBet({ stake: { kind: 'signer', bettor }, side: 'UP', amount: 1n, entryPrice: 1n })],
    ['closeBet', () => chain.closeBet({ bettor: bettor.publicKey.toBase58(), seq: 0n }, 1n)],
    ['closeAndReplace', () => chain.closeAndReplace({ bettor: bettor.publicKey.toBase58(), seq: 0n }, 1n, bettor, 1n)],
    ['refundExpired', () => chain.refundExpired({ bettor: bettor.publicKey.toBase58(), seq: 0n })],
    ['reclaimBet', () => chain.reclaimBet({ bettor: bettor.publicKey.toBase58(), seq: 0n })],
    ['setPaused', () => chain.setPaused(true)],
    ['faucet', () => chain.faucet(bettor.publicKey)],
    ['balances', () => chain.balances(bettor.publicKey)],
    ['vaultBalance', () => chain.vaultBalance()],
    ['genesisHash', () => chain.genesisHash()],
    ['clusterKind', () => chain.clusterKind()],
  ];
  for (const [name, op] of ops) {
    const err = await op().then(
      () => new Error(`${name} resolved`),
      (e: unknown) => e,
    );
    expect(err, name).toBeInstanceOf(ChainUnavailable);
  }
}

/**
 * A fake node for the calling suite: an HTTP server on a free loopback port that hands each
 * request's body to `answer`. Returns the server's URL (read it inside tests).
 */
function fakeNodeForSuite(answer: (body: string, res: ServerResponse) => void): () => string {
  let server: HttpServer | undefined;
  let url = '';
  beforeAll(async () => {
    const started = createHttpServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => answer(body, res));
    });
    server = started;
    await new Promise<void>((r) => started.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(started.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
  });
  return () => url;
}

/** Answers the JSON-RPC request in `body` with `result(method)` under the request's id. */
function rpcAnswer(body: string, res: ServerResponse, result: (method: string) => unknown): void {
  const { id, method } = JSON.parse(body) as { id: number; method: string };
  res.writeHead(200).end(JSON.stringify({ jsonrpc: '2.0', id, result: result(method) }));
}

describe('a port that never answers', () => {
  let server: TcpServer;
  const sockets: Socket[] = [];
  let url: string;
  beforeAll(async () => {
    server = createTcpServer((s) => sockets.push(s)); // accepts, reads nothing, says nothing
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  });

  it('times out every operation as ChainUnavailable', async () => {
    await everyOperationUnavailable(adapterAt(url));
    await expect(adapterAt(url).genesisHash()).rejects.toThrow(/did not answer within 300 ms/);
    await expect(adapterAt(url).readConfig()).rejects.toThrow(/did not open within 300 ms/);
  });
});

describe('a closed port', () => {
  it('is ChainUnavailable', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    await everyOperationUnavailable(adapterAt(url));
    await expect(adapterAt(url).genesisHash()).rejects.toThrow(/unreachable/);
  });
});

describe('a port that answers nonsense', () => {
  const answers: Record<string, (body: string, res: ServerResponse) => void> = {
    'plain text': (_b, res) => res.writeHead(200).end('hello, I am not a validator'),
    'binary bytes': (_b, res) => res.writeHead(200).end(Buffer.from([0, 159, 146, 150, 255])),
    'HTTP 502': (_b, res) => res.writeHead(502).end('bad gateway'),
    'JSON that is not JSON-RPC': (_b, res) => res.writeHead(200).end('{"hello":"world"}'),
    'JSON-RPC answer with a wrong id': (b, res) => res.writeHead(200).end(JSON.stringify({ jsonrpc: '2.0', id: 987654, result: 'x' })),
    'JSON-RPC result of the wrong shape': (b, res) => {
      const id = (JSON.parse(b) as { id: number }).id;
      res.writeHead(200).end(JSON.stringify({ jsonrpc: '2.0', id, result: { context: 'nope', value: [1, 2, 3] } }));
    },
    'JSON-RPC error for everything': (b, res) => {
      const id = (JSON.parse(b) as { id: number }).id;
      res.writeHead(200).end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } }));
    },
    'a connection cut mid-answer': (_b, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('{"jsonrpc":"2.0",');
      res.socket?.destroy();
    },
  };

  for (const [name, answer] of Object.entries(answers)) {
    describe(name, () => {
      const url = fakeNodeForSuite(answer);

      it('makes every operation ChainUnavailable', async () => {
        await everyOperationUnavailable(adapterAt(url()));
      });
    });
  }
});

describe('a chain that takes transactions but never confirms them', () => {
  const url = fakeNodeForSuite((body, res) =>
    rpcAnswer(body, res, (method) => {
      const results: Record<string, unknown> = {
        getLatestBlockhash: { context: { slot: 1 }, value: { blockhash: Keypair.generate().publicKey.toBase58(), lastValidBlockHeight: 150 } },
        sendTransaction: '5'.repeat(88),
        getSignatureStatuses: { context: { slot: 1 }, value: [null] },
        // every call moves the height 100 blocks on: each signing's blockhash has expired at the next look
        getBlockHeight: (height += 100),
      };
      return results[method] ?? null;
    }),
  );
  let height = 0;

  it('signs the intent again after each expiry, then gives up: ChainUnavailable, never a confirmation', async () => {
    const err = await adapterAt(url())
      .setPaused(true)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChainUnavailable);
    expect((err as Error).message).toMatch(/set_paused: not landed; 3 signings expired unlanded/);
  });
});
