/**
 * The program's accounts as any client of the chain sees them, over its JSON-RPC: what the chain
 * holds now (`getProgramAccounts`), and every write of a bet account during a run (a
 * `programSubscribe` on the PubSub port), because a reclaimed bet is gone from the chain and only
 * its writes tell what it was. Used by the audits that compare the gateway's answers and history
 * with the chain.
 *
 * @example
 *   const watch = await BetAccountWatch.start(chainUrl);   // before the first bet
 *   // ... bets are placed, settled and reclaimed
 *   const { bets, unseen } = await watch.everHeld();       // the last state of every bet ever held
 *   watch.close();
 */
import { PublicKey } from '@solana/web3.js';
import WebSocket from 'ws';
import { accountKind, bettorAddress, decodeBet, decodeBettorState, PROGRAM_ID } from '../../adapters/chain/codec.ts';
import type { BetAccount, BettorState } from '../../adapters/chain/port.ts';
import { pubsubUrlOf } from '../../adapters/chain/rpc-chain/index.ts';
import { eventually } from './eventually.ts';

/** One JSON-RPC call; throws on a transport failure or a JSON-RPC error. */
export async function rpc<T>(rpcUrl: string, method: string, params: unknown[]): Promise<T> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(15_000),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

type EncodedAccount = { data: [string, string] };
const bytesOf = (a: EncodedAccount): Uint8Array => Buffer.from(a.data[0], 'base64');

/** Every bet and bettor state the program's accounts hold now. */
export async function programAccountsNow(rpcUrl: string): Promise<{ bets: BetAccount[]; bettors: BettorState[] }> {
  const accounts = await rpc<Array<{ pubkey: string; account: EncodedAccount }>>(rpcUrl, 'getProgramAccounts', [PROGRAM_ID.toBase58(), { encoding: 'base64' }]);
  const bets: BetAccount[] = [];
  const bettors: BettorState[] = [];
  for (const { account } of accounts) {
    const data = bytesOf(account);
    const kind = accountKind(data);
    if (kind === 'bet') bets.push(decodeBet(data));
    else if (kind === 'bettor') bettors.push(decodeBettorState(data));
  }
  return { bets, bettors };
}

/** The bettor state of `address` on chain now (null when it never bet). */
export async function bettorStateNow(rpcUrl: string, address: string): Promise<BettorState | null> {
  const r = await rpc<{ value: EncodedAccount | null }>(rpcUrl, 'getAccountInfo', [bettorAddress(new PublicKey(address)).toBase58(), { encoding: 'base64' }]);
  return r.value ? decodeBettorState(bytesOf(r.value)) : null;
}

/** Every write of a bet account seen over one PubSub connection. */
export class BetAccountWatch {
  /** bet id -> the bet after each write, in commit order */
  readonly writes = new Map<string, BetAccount[]>();
  private lost = false;
  private closing = false;

  private constructor(
    private readonly rpcUrl: string,
    private readonly socket: WebSocket,
  ) {}

  /** Subscribes to the program's accounts; resolves once the chain acknowledged the subscription. */
  static start(rpcUrl: string): Promise<BetAccountWatch> {
    const socket = new WebSocket(pubsubUrlOf(rpcUrl));
    const watch = new BetAccountWatch(rpcUrl, socket);
    return new Promise((resolve, reject) => {
      socket.once('error', reject);
      socket.once('open', () =>
        socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'programSubscribe', params: [PROGRAM_ID.toBase58(), { encoding: 'base64' }] })),
      );
      socket.on('message', (raw) => {
        const m = JSON.parse(String(raw)) as {
          id?: number;
          result?: unknown;
          error?: { message: string };
          params?: { result: { value: { account: EncodedAccount } } };
        };
        if (m.id === 1) return m.error ? reject(new Error(`programSubscribe: ${m.error.message}`)) : resolve(watch);
        if (m.params) watch.seen(bytesOf(m.params.result.value.account));
      });
      // a dropped connection loses writes for good: the audits must not trust this watch then
      socket.on('close', () => {
        if (!watch.closing) watch.lost = true;
      });
    });
  }

  private seen(data: Uint8Array): void {
    if (accountKind(data) !== 'bet') return;
    const bet = decodeBet(data);
    const id = bet.id.toString();
    const list = this.writes.get(id) ?? [];
    list.push(bet);
    this.writes.set(id, list);
  }

  /** Whether the subscription dropped before `close()` (writes may be missing). */
  get dropped(): boolean {
    return this.lost;
  }

  /**
   * The latest state of every bet the chain held during the watch: its account now when it is
   * still there, else its last write seen. `unseen` names bets on chain that no notification
   * announced (the watch missed writes: its results are incomplete).
   */
  async everHeld(): Promise<{ bets: BetAccount[]; unseen: string[] }> {
    const now = await programAccountsNow(this.rpcUrl);
    const latest = new Map<string, BetAccount>();
    for (const [id, list] of this.writes) latest.set(id, list[list.length - 1]!);
    const unseen = now.bets.filter((b) => !this.writes.has(b.id.toString())).map((b) => b.id.toString());
    for (const b of now.bets) latest.set(b.id.toString(), b);
    return { bets: [...latest.values()].sort((a, b) => (a.id < b.id ? -1 : 1)), unseen };
  }

  close(): void {
    this.closing = true;
    this.socket.close();
  }
}

/** Waits until none of `addresses` has an open bet on chain (bounded by `timeoutMs`, a hang guard). */
export async function untilNoOpenBet(rpcUrl: string, addresses: readonly string[], timeoutMs: number): Promise<void> {
  await eventually(
    `no open bet for ${addresses.length} bettors`,
    async () => ((await Promise.all(addresses.map((a) => bettorStateNow(rpcUrl, a)))).every((s) => s === null || s.openBetId === null) ? true : null),
    timeoutMs,
  );
}
