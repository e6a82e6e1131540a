/**
 * Who listens to what on the local chain's PubSub (`subscriptions.ts` serves it over the WebSocket
 * and in-process): one node listener per server dispatches each committed write to the account
 * and program subscriptions it concerns, and each subscription method starts its watch here.
 * Under a fault profile (docs/operations.md#a-fault-profile) subscriptions at `processed` also
 * hear of rolled-back transactions, and signature notifications wait out the status lag.
 */
import * as v from 'valibot';
import type { FaultHooks } from './faults/hooks.ts';
import type { AccountImage, StatusEntry } from './journal.ts';
import { parseParams } from './json-rpc.ts';
import type { LocalNode } from './node.ts';
import { RPC_CODES, RpcFailure } from './rpc-failure.ts';
import { AccountConfig, ProgramAccountsConfig, Pubkey, accountJson, matches } from './rpc-methods.ts';

const SYSTEM_PROGRAM = '11111111111111111111111111111111';

export type Notify = (method: string, subscription: number, result: object) => void;

/** An account as a subscriber sees it; a deleted one is the validator's empty system account. */
const shown = (a: AccountImage): AccountImage =>
  a.lamports === null ? { ...a, lamports: 0n, owner: SYSTEM_PROGRAM, executable: false, data: new Uint8Array() } : a;

/** One account or program subscription. */
interface Watcher {
  cb: (slot: number, a: AccountImage) => void;
  /** at `processed` commitment: also hears of transactions that are rolled back */
  processed: boolean;
}

/** Who listens to which account and program; one node listener dispatches each write to them. */
export class Watchers {
  private readonly byAccount = new Map<string, Set<Watcher>>();
  private readonly byProgram = new Map<string, Set<Watcher>>();
  private readonly stops: Array<() => void>;

  constructor(
    private readonly node: LocalNode,
    private readonly faults: FaultHooks | null = null,
  ) {
    this.stops = [
      node.events.accounts.add((slot, accounts) => this.dispatch(slot, accounts, false)),
      faults?.watchRollbacks((slot, accounts) => this.dispatch(slot, accounts, true)) ?? (() => undefined),
    ];
  }

  /** Watches an account or a program's accounts at `commitment` (the default is not `processed`, as on a validator). */
  add(map: 'account' | 'program', key: string, cb: (slot: number, a: AccountImage) => void, commitment?: string): () => void {
    const index = map === 'account' ? this.byAccount : this.byProgram;
    const set = index.get(key) ?? new Set();
    const watcher = { cb, processed: commitment === 'processed' };
    set.add(watcher);
    index.set(key, set);
    return () => {
      set.delete(watcher);
      if (set.size === 0) index.delete(key);
    };
  }

  private dispatch(slot: number, accounts: AccountImage[], rolledBack: boolean): void {
    for (const a of accounts) {
      for (const w of this.byAccount.get(a.address) ?? []) if (w.processed || !rolledBack) w.cb(slot, a);
      if (a.lamports === null) continue;
      for (const w of this.byProgram.get(a.owner) ?? []) if (w.processed || !rolledBack) w.cb(slot, a);
    }
  }

  /** Calls `cb` once the signature has a status a subscriber may see; returns an unsubscribe. */
  signature(signature: string, cb: (status: StatusEntry) => void): () => void {
    const faults = this.faults;
    if (!faults) return this.node.watchSignature(signature, cb);
    let cancelHold: () => void = () => undefined;
    const stop = this.node.watchSignature(signature, (st) => {
      cancelHold = faults.holdSignature(signature, () => cb(st));
    });
    return () => {
      stop();
      cancelHold();
    };
  }

  close(): void {
    for (const stop of this.stops) stop();
  }
}

/** Starts one subscription for `method`; returns how to stop it. Throws RpcFailure on bad params. */
export function subscribeOnNode(node: LocalNode, watchers: Watchers, method: string, params: unknown[], sub: number, notify: Notify): () => void {
  switch (method) {
    case 'signatureSubscribe': {
      const [signature] = parseParams(v.tuple([v.string(), v.optional(v.looseObject({}))]), params);
      return watchers.signature(signature, (st) => notify('signatureNotification', sub, { context: { slot: st.slot }, value: { err: st.err } }));
    }
    case 'accountSubscribe': {
      const [key, cfg] = parseParams(v.tuple([Pubkey, AccountConfig]), params);
      return watchers.add(
        'account',
        key,
        (slot, a) => notify('accountNotification', sub, { context: { slot }, value: accountJson(shown(a), cfg?.encoding, cfg?.dataSlice) }),
        cfg?.commitment,
      );
    }
    case 'programSubscribe': {
      const [owner, cfg] = parseParams(v.tuple([Pubkey, ProgramAccountsConfig]), params);
      return watchers.add(
        'program',
        owner,
        (slot, a) => {
          if (matches(a, cfg?.filters))
            notify('programNotification', sub, { context: { slot }, value: { pubkey: a.address, account: accountJson(a, cfg?.encoding, cfg?.dataSlice) } });
        },
        cfg?.commitment,
      );
    }
    default:
      throw new RpcFailure(RPC_CODES.methodNotFound, 'Method not found');
  }
}
