/**
 * The chain mirror against a scripted JSON-RPC node and an in-memory PubSub: it holds what the
 * start read and what notifications say, never lets an older slot overwrite a newer value, leaves
 * out accounts that do not decode, re-syncs after a dropped subscription (dropping accounts gone
 * meanwhile), reads a new wallet once for concurrent askers and then watches it, and refuses to
 * answer once its subscriptions have been down past the grace. A write is waited for by its own
 * account (another account's notification of the same slot does not count), and a reclaim made
 * anywhere is learnt from the bettor state's `reclaimed` count.
 */
import { Keypair, PublicKey } from '@solana/web3.js';
import { TOKEN_PROGRAM_ID } from '@solana/spl-token';
import anchor from '@coral-xyz/anchor';
import { describe, expect, it } from 'vitest';
import { PROGRAM_ID, UPDOWN_IDL } from '../../../program/index.ts';
import { quietLog } from '../../../test/support/quiet-log.ts';
import { betAddress, bettorAddress, configAddress } from '../codec.ts';
import { ChainMirror } from './index.ts';
import { ChainUnavailable } from '../port.ts';
import type { PubSub, SubscribeMethod, Subscription } from '../pubsub.ts';
import { RpcClient, type JsonRpcTransport } from '../rpc-client.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const coder = new anchor.BorshCoder(UPDOWN_IDL);
const bn = (n: bigint | number) => new anchor.BN(n.toString());
const MINT = Keypair.generate().publicKey;
const VAULT = Keypair.generate().publicKey;

async function configData(paused: boolean): Promise<string> {
  const k = Keypair.generate().publicKey;
  const buf = await coder.accounts.encode('Config', {
    admin: k,
    pending_admin: PublicKey.default,
    relayer: k,
    mint: MINT,
    vault: VAULT,
    counter: bn(1),
    next_bet_id: bn(2),
    min_amount: bn(1),
    max_amount: bn(10),
    multiplier_bps: bn(13_000),
    expiry_seconds: bn(15),
    refund_after_seconds: bn(300),
    open_liability: bn(0),
    paused: paused ? 1 : 0,
    bump: 255,
  });
  return buf.toString('base64');
}

async function betData(bettor: PublicKey, seq: bigint, status: number): Promise<string> {
  const buf = await coder.accounts.encode('Bet', {
    id: bn(seq + 1n),
    bettor,
    payer: bettor,
    seq: bn(seq),
    side: 0,
    amount: bn(100),
    entry_price: bn(5),
    exit_price: bn(status === 0 ? 0 : 6),
    bet_time: bn(1),
    expire_time: bn(16),
    status,
    bump: 255,
  });
  return buf.toString('base64');
}

async function bettorData(bettor: PublicKey, betCount: bigint, reclaimed: bigint, openBetId: bigint | null): Promise<string> {
  const buf = await coder.accounts.encode('BettorState', {
    bettor,
    payer: bettor,
    open_bet_id: bn(openBetId ?? 0n),
    has_open_bet: openBetId === null ? 0 : 1,
    bet_count: bn(betCount),
    reclaimed: bn(reclaimed),
    bump: 255,
  });
  return buf.toString('base64');
}

const account = (data: string, owner = PROGRAM_ID.toBase58(), lamports = 1_000_000) => ({
  data: [data, 'base64'],
  lamports,
  owner,
  executable: false,
  rentEpoch: 0,
  space: 0,
});

/** A node whose program accounts, token accounts and wallets the test sets; counts calls. */
class ScriptedNode implements JsonRpcTransport {
  readonly description = 'scripted';
  slot = 10;
  program = new Map<string, ReturnType<typeof account>>();
  tokens = new Map<string, ReturnType<typeof account>>();
  wallets = new Map<string, number>();
  calls: Record<string, number> = {};

  async exchange(body: object): Promise<unknown> {
    const { id, method, params } = body as { id: number; method: string; params: unknown[] };
    this.calls[method] = (this.calls[method] ?? 0) + 1;
    await sleep(2);
    const ctx = { slot: this.slot };
    let result: unknown;
    if (method === 'getProgramAccounts') {
      const map = params[0] === TOKEN_PROGRAM_ID.toBase58() ? this.tokens : this.program;
      result = { context: ctx, value: [...map].map(([pubkey, a]) => ({ pubkey, account: a })) };
    } else if (method === 'getMultipleAccounts') {
      const min = (params[1] as { minContextSlot?: number } | undefined)?.minContextSlot;
      if (min !== undefined && min > this.slot)
        return { jsonrpc: '2.0', id, error: { code: -32016, message: 'Minimum context slot has not been reached', data: { contextSlot: this.slot } } };
      result = {
        context: ctx,
        value: (params[0] as string[]).map(
          (k) => this.program.get(k) ?? (this.wallets.has(k) ? account('', '11111111111111111111111111111111', this.wallets.get(k)) : null),
        ),
      };
    } else throw new Error(`unexpected ${method}`);
    return { jsonrpc: '2.0', id, result };
  }
}

/** PubSub whose notifications the test pushes; it can be taken down and brought back. */
class FakePubSub implements PubSub {
  private state: 'open' | 'connecting' = 'open';
  private since = Date.now();
  readonly subs: Array<{ method: SubscribeMethod; params: unknown[]; cb: (r: unknown) => void; live: boolean }> = [];
  private readonly resyncs = new Set<() => void>();

  async subscribe(method: SubscribeMethod, params: unknown[], cb: (r: unknown) => void): Promise<Subscription> {
    const s = { method, params, cb, live: true };
    this.subs.push(s);
    return { unsubscribe: () => (s.live = false) };
  }
  onResync(cb: () => void) {
    this.resyncs.add(cb);
    return () => this.resyncs.delete(cb);
  }
  status() {
    return this.state;
  }
  statusSince() {
    return this.since;
  }
  close() {}
  notify(method: SubscribeMethod, match: (params: unknown[]) => boolean, result: unknown): void {
    for (const s of this.subs) if (s.live && s.method === method && match(s.params)) s.cb(result);
  }
  drop(): void {
    this.state = 'connecting';
    this.since = Date.now();
  }
  back(): void {
    this.state = 'open';
    this.since = Date.now();
    for (const cb of this.resyncs) cb();
  }
}

function world() {
  const node = new ScriptedNode();
  const pubsub = new FakePubSub();
  const mirror = new ChainMirror({ rpc: new RpcClient(node), pubsub, programId: PROGRAM_ID, log: quietLog, staleGraceMs: 50 });
  const programNote = (pubkey: PublicKey, data: string, slot: number) =>
    pubsub.notify('programSubscribe', (p) => p[0] === PROGRAM_ID.toBase58(), {
      context: { slot },
      value: { pubkey: pubkey.toBase58(), account: account(data) },
    });
  return { node, pubsub, mirror, programNote };
}

describe('ChainMirror', () => {
  it('answers from the start read, then from notifications; an older slot never overwrites a newer value', async () => {
    const { node, mirror, programNote } = world();
    node.program.set(configAddress().toBase58(), account(await configData(false)));
    await mirror.start();
    expect((await mirror.config())?.paused).toBe(false);
    programNote(configAddress(), await configData(true), 12);
    expect((await mirror.config())?.paused).toBe(true);
    programNote(configAddress(), await configData(false), 11); // late, older
    expect((await mirror.config())?.paused).toBe(true);
    expect(node.calls.getProgramAccounts).toBe(2); // program accounts, then the mint's token accounts: nothing more per read
  });

  it('indexes bets by address and open bets by status; a bet that does not decode is left out', async () => {
    const { node, mirror, programNote } = world();
    const bettor = Keypair.generate().publicKey;
    node.program.set(configAddress().toBase58(), account(await configData(false)));
    node.program.set(betAddress({ bettor: bettor.toBase58(), seq: 0n }).toBase58(), account(await betData(bettor, 0n, 2)));
    node.program.set(Keypair.generate().publicKey.toBase58(), account(Buffer.from('junk that is no account').toString('base64')));
    await mirror.start();
    programNote(betAddress({ bettor: bettor.toBase58(), seq: 1n }), await betData(bettor, 1n, 0), 11);
    expect((await mirror.openBets()).map((b) => b.seq)).toEqual([1n]);
    expect((await mirror.betsOf(bettor)).map((b) => [b.seq, b.status])).toEqual([
      [0n, 2],
      [1n, 0],
    ]);
    expect(await mirror.bet({ bettor: bettor.toBase58(), seq: 7n })).toBeNull();
  });

  it('re-syncs after a dropped subscription: values changed meanwhile are read, accounts gone are dropped', async () => {
    const { node, pubsub, mirror } = world();
    const bettor = Keypair.generate().publicKey;
    const ref = { bettor: bettor.toBase58(), seq: 0n };
    node.program.set(configAddress().toBase58(), account(await configData(false)));
    node.program.set(betAddress(ref).toBase58(), account(await betData(bettor, 0n, 1)));
    await mirror.start();
    expect(await mirror.bet(ref)).not.toBeNull();
    pubsub.drop();
    node.slot = 20;
    node.program.set(configAddress().toBase58(), account(await configData(true)));
    node.program.delete(betAddress(ref).toBase58()); // reclaimed while the mirror was away
    await sleep(80);
    await expect(mirror.config()).rejects.toBeInstanceOf(ChainUnavailable); // down past the grace: no stale answers
    pubsub.back();
    await expect.poll(async () => (await mirror.config())?.paused, { timeout: 2_000 }).toBe(true);
    expect(await mirror.bet(ref)).toBeNull();
  });

  it('reads a new wallet once for concurrent askers, then watches it', async () => {
    const { node, pubsub, mirror } = world();
    node.program.set(configAddress().toBase58(), account(await configData(false)));
    const wallet = Keypair.generate().publicKey;
    node.wallets.set(wallet.toBase58(), 5_000);
    await mirror.start();
    const before = node.calls.getMultipleAccounts ?? 0;
    expect(await Promise.all([mirror.lamports(wallet), mirror.lamports(wallet), mirror.lamports(wallet)])).toEqual([5_000n, 5_000n, 5_000n]);
    expect((node.calls.getMultipleAccounts ?? 0) - before).toBe(1);
    pubsub.notify('accountSubscribe', (p) => p[0] === wallet.toBase58(), {
      context: { slot: 30 },
      value: account('', '11111111111111111111111111111111', 7_000),
    });
    expect(await mirror.lamports(wallet)).toBe(7_000n);
    expect((node.calls.getMultipleAccounts ?? 0) - before).toBe(1);
  });

  it('follows the token balances of the mint from one subscription', async () => {
    const { node, pubsub, mirror } = world();
    node.program.set(configAddress().toBase58(), account(await configData(false)));
    const amount = (n: bigint) => {
      const data = Buffer.alloc(165);
      MINT.toBuffer().copy(data, 0);
      data.writeBigUInt64LE(n, 64);
      return account(data.toString('base64'), TOKEN_PROGRAM_ID.toBase58());
    };
    node.tokens.set(VAULT.toBase58(), amount(1_000n));
    await mirror.start();
    expect(await mirror.tokenAmount(VAULT)).toBe(1_000n);
    pubsub.notify('programSubscribe', (p) => p[0] === TOKEN_PROGRAM_ID.toBase58(), {
      context: { slot: 40 },
      value: { pubkey: VAULT.toBase58(), account: amount(900n) },
    });
    expect(await mirror.tokenAmount(VAULT)).toBe(900n);
    expect(pubsub.subs.filter((s) => s.method === 'programSubscribe')).toHaveLength(2);
  });

  it("waits for a written account's own notification: another account written in the same slot does not count; a late one is read at that slot", async () => {
    const { node, mirror, programNote } = world();
    node.program.set(configAddress().toBase58(), account(await configData(false)));
    await mirror.start();
    const [a, b] = [Keypair.generate().publicKey, Keypair.generate().publicKey];
    const refA = { bettor: a.toBase58(), seq: 0n };
    const refB = { bettor: b.toBase58(), seq: 0n };
    // both land in slot 15; only B's notification comes
    node.program.set(betAddress(refA).toBase58(), account(await betData(a, 0n, 0)));
    programNote(betAddress(refB), await betData(b, 0n, 0), 15);
    const waiting = mirror.written([betAddress(refA)], 15, 100);
    const reads = node.calls.getMultipleAccounts ?? 0;
    node.slot = 14; // the node serving the read is behind the write at first
    setTimeout(() => (node.slot = 15), 250);
    await waiting;
    expect(mirror.peekBet(refA)?.seq).toBe(0n);
    expect((node.calls.getMultipleAccounts ?? 0) - reads).toBeGreaterThan(1); // asked again until the node had the slot
    // B's own notification came: nothing is read
    const before = node.calls.getMultipleAccounts ?? 0;
    await mirror.written([betAddress(refB)], 15, 100);
    expect(node.calls.getMultipleAccounts ?? 0).toBe(before);
  });

  it("drops settled bets below the bettor state's `reclaimed` count when it rises (a reclaim sends no notification of its own)", async () => {
    const { node, mirror, programNote } = world();
    const bettor = Keypair.generate().publicKey;
    const ref = (seq: bigint) => ({ bettor: bettor.toBase58(), seq });
    node.program.set(configAddress().toBase58(), account(await configData(false)));
    for (const seq of [0n, 1n, 2n]) node.program.set(betAddress(ref(seq)).toBase58(), account(await betData(bettor, seq, seq === 2n ? 0 : 1)));
    node.program.set(bettorAddress(bettor).toBase58(), account(await bettorData(bettor, 3n, 0n, 3n)));
    await mirror.start();
    expect((await mirror.betsOf(bettor)).map((b) => b.seq)).toEqual([0n, 1n, 2n]);
    programNote(bettorAddress(bettor), await bettorData(bettor, 3n, 2n, 3n), 20); // another node reclaimed seqs 0 and 1
    expect((await mirror.betsOf(bettor)).map((b) => b.seq)).toEqual([2n]);
    expect((await mirror.bettor(bettor))?.reclaimed).toBe(2n);
  });
});
