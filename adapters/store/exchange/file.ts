/**
 * The exchange ledger of the embedded default, kept in DATA_DIR (append-only files, as the local
 * chain's journal: docs/architecture.md#the-embedded-journal):
 * the accounts live in a `MemoryLedger`, and every change is one JSON line of
 * `<DATA_DIR>/exchange/ledger.log`, written in the same synchronous step as the change and on
 * disk (group-committed fsync) before the caller is answered. Opening replays the file; when it
 * has grown past twice what the state needs it is rewritten with one line per account.
 *
 * Lines: `{"k":"create",...}` a new account; `{"k":"commit","id","v","c"}` a ledger commit at
 * version `v` (with the order's final state when it is a trade); `{"k":"del","id"}`;
 * `{"k":"acct","h"}` a whole account (compaction); `{"k":"relayed","id","j","o"}` how far the
 * events relay got in the account's journal and orders (docs/operations.md#exchange-events-outbox).
 *
 * @example
 *   const store = openFileExchangeStore('.data/exchange/ledger.log');
 */
import * as v from 'valibot';
import { JournalEntrySchema } from '../../../machines/exchange/journal.ts';
import { dec } from '../../../machines/exchange/money.ts';
import {
  AccountJson,
  accountFromJson,
  accountToJson,
  BalancesJson,
  balancesFromJson,
  balancesToJson,
  commitFromJson,
  commitToJson,
  DecimalText,
  type LedgerCommitJson,
} from './codec.ts';
import { ledgerReads, MemoryLedger, type HeldAccountJson, type Lengths } from './memory.ts';
import type { EquityPoint, ExchangeStore, LedgerOutbox } from './port.ts';
import { LineJournal } from '../file/line-journal.ts';

const Plain = v.looseObject({});
const Line = v.variant('k', [
  // `r`: the account's events are relayed from its opening entry (absent in lines written before the relay)
  v.object({ k: v.literal('create'), account: AccountJson, balances: BalancesJson, opening: JournalEntrySchema, point: Plain, r: v.optional(v.literal(true)) }),
  v.object({ k: v.literal('commit'), id: v.string(), v: v.number(), c: v.looseObject({ balances: BalancesJson }) }),
  v.object({ k: v.literal('del'), id: v.string() }),
  v.object({ k: v.literal('fees'), id: v.string(), feeRate: DecimalText, makerFeeRate: DecimalText }),
  v.object({ k: v.literal('acct'), h: v.looseObject({ account: AccountJson, balances: BalancesJson, version: v.number() }) }),
  // how far the events relay got: journal entries and order records published
  v.object({ k: v.literal('relayed'), id: v.string(), j: v.number(), o: v.number() }),
]);
type Line = v.InferOutput<typeof Line>;

/** Tuning of the file store. */
export interface FileExchangeOptions {
  /** rewrite the file once it has this many lines more than the state needs [20000] */
  compactSlack?: number;
}

/** Opens (or creates) the ledger file at `path`, replays it, and returns the store over it. */
export function openFileExchangeStore(path: string, options: FileExchangeOptions = {}): ExchangeStore & { lines(): number; outbox: LedgerOutbox } {
  const ledger = new MemoryLedger();
  const { journal, lines } = LineJournal.open(path, (l) => void v.parse(Line, JSON.parse(l)));
  for (const text of lines) apply(ledger, v.parse(Line, JSON.parse(text)), path);
  const slack = options.compactSlack ?? 20_000;
  let compactAt = journal.length + slack;

  const compact = () => {
    const out = ledger.exportAccounts().map((h) => JSON.stringify({ k: 'acct', h }));
    journal.rewrite(out);
    compactAt = journal.length + Math.max(slack, journal.length);
  };
  /** Appends the line of a change just made, and resolves once it is on disk. */
  const record = async (line: Line): Promise<void> => {
    const durable = journal.appendDurably(JSON.stringify(line));
    if (journal.length >= compactAt) compact();
    await durable;
  };

  // accounts with changes on their way to disk, and how much of them is on disk: the relay publishes no further
  const landingOf = new Map<string, { durable: Lengths; count: number }>();
  /** Records a change of `id` made in memory (its lengths were `before`), tracking what is durable meanwhile. */
  const landing = async (id: string, before: Lengths, write: () => Promise<void>): Promise<void> => {
    const after = ledger.lengths(id) ?? before;
    const l = landingOf.get(id) ?? { durable: before, count: 0 };
    l.count++;
    landingOf.set(id, l);
    try {
      await write();
      if (after.journal > l.durable.journal) l.durable = after;
    } finally {
      if (--l.count === 0) landingOf.delete(id);
    }
  };

  return {
    kind: 'file',
    ...ledgerReads(ledger),
    async createAccount(account, balances, opening, point) {
      const out = ledger.createNow(account, balances, opening, point);
      if (out === 'created')
        await landing(account.id, { journal: 0, orders: 0 }, () =>
          record({ k: 'create', account: accountToJson(account), balances: balancesToJson(balances), opening, point: { ...point }, r: true }),
        );
      return out;
    },
    async commit(id, expectedVersion, change) {
      const before = ledger.lengths(id);
      const out = ledger.commitNow(id, expectedVersion, change);
      if (out === 'committed' && before) await landing(id, before, () => record({ k: 'commit', id, v: expectedVersion, c: commitToJson(change) }));
      return out;
    },
    async setFees(id, fees) {
      const out = ledger.setFeesNow(id, fees);
      if (out) await record({ k: 'fees', id, feeRate: fees.feeRate.toFixed(), makerFeeRate: fees.makerFeeRate.toFixed() });
      return out;
    },
    async deleteAccount(id) {
      const out = ledger.deleteNow(id);
      if (out) await record({ k: 'del', id });
      return out;
    },
    outbox: {
      async read(id, limit) {
        const out = ledger.outboxRead(id, limit, landingOf.get(id)?.durable ?? null);
        if (!out) return null;
        if (out.started) await record({ k: 'relayed', id, j: out.started.journal, o: out.started.orders });
        return out.page;
      },
      async advance(id, to) {
        const cursor = { journal: Number(to.journal), orders: to.orders };
        if (ledger.advanceNow(id, cursor)) await record({ k: 'relayed', id, j: cursor.journal, o: cursor.orders });
      },
    },
    ping: async () => undefined,
    lines: () => journal.length,
    async close() {
      journal.close();
    },
  };
}

/** The reads of a ledger file as it is now, without opening it for writing (the operator CLI, while an exchange runs). */
export function readFileExchangeLedger(path: string): ReturnType<typeof ledgerReads> {
  const ledger = new MemoryLedger();
  for (const text of LineJournal.read(path, (l) => void v.parse(Line, JSON.parse(l)))) apply(ledger, v.parse(Line, JSON.parse(text)), path);
  return ledgerReads(ledger);
}

/** Replays one line into the ledger; a line that does not apply means the file is damaged. */
function apply(ledger: MemoryLedger, line: Line, path: string): void {
  const fail = (what: string) => {
    throw new Error(`${path}: ${what} does not apply to the state before it; the file is damaged`);
  };
  switch (line.k) {
    case 'create':
      if (
        ledger.createNow(
          accountFromJson(line.account),
          balancesFromJson(line.balances),
          line.opening,
          line.point as unknown as EquityPoint,
          line.r === true,
        ) !== 'created'
      )
        fail(`account ${line.account.id}`);
      return;
    case 'commit':
      if (ledger.commitNow(line.id, line.v, commitFromJson(line.c as unknown as LedgerCommitJson)) !== 'committed') fail(`commit ${line.v} of ${line.id}`);
      return;
    case 'del':
      ledger.deleteNow(line.id);
      return;
    case 'fees':
      if (!ledger.setFeesNow(line.id, { feeRate: dec(line.feeRate), makerFeeRate: dec(line.makerFeeRate) })) fail(`the fees of ${line.id}`);
      return;
    case 'acct':
      ledger.importAccount(line.h as unknown as HeldAccountJson);
      return;
    case 'relayed':
      ledger.advanceNow(line.id, { journal: line.j, orders: line.o });
      return;
  }
}
