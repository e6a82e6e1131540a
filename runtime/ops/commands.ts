/**
 * The operator commands, each a function from validated options to an output that the CLI
 * prints as a table or as JSON. Sources are opened per command and always closed.
 */
import type { LoggedEvent, Sequenced } from '../../adapters/store/event-log/port.ts';
import { betRow, findBet, listBets, type BetFilter, type BetRow } from './bets.ts';
import { readChainBet } from './chain-bet.ts';
import { OpsError } from './errors.ts';
import { followEvents, readEvents } from './events.ts';
import { listAccounts, listOrders, readJournal, readOrder, replayCheck } from './exchange.ts';
import type { GatewayRecords } from './gateway-records.ts';
import type { OpsOptions } from './options.ts';
import { fields, seconds, table } from './render.ts';
import { openExchangeReads, openGatewayRecords, type ExchangeReads } from './sources.ts';

/** What a command prints: `data` with --json, `text` otherwise; `exitCode` 0 unless said. */
export interface CommandOutput {
  data: unknown;
  text: string;
  exitCode?: number;
}

/** Opens a source, runs `run` on it, and closes it whatever happened. */
const using =
  <S extends { close(): Promise<void> }>(open: (o: OpsOptions) => Promise<S>) =>
  async <T>(o: OpsOptions, run: (source: S) => Promise<T>): Promise<T> => {
    const source = await open(o);
    try {
      return await run(source);
    } finally {
      await source.close();
    }
  };

export const withGateway: <T>(o: OpsOptions, run: (r: GatewayRecords) => Promise<T>) => Promise<T> = using(openGatewayRecords);
const withExchange: <T>(o: OpsOptions, run: (s: ExchangeReads) => Promise<T>) => Promise<T> = using(openExchangeReads);

const betTable = (rows: BetRow[]) =>
  rows.length === 0
    ? 'no live bet series'
    : table(
        ['id', 'bet', 'bettor', 'side', 'amount', 'state', 'attempt', 'lastError', 'age', 'stuck'],
        rows.map((r) => [r.id, r.betId, r.bettor, r.side, r.amountUnits, r.state, r.attempt, r.lastError, seconds(r.age), r.stuck ? 'yes' : '']),
      );

/** `bets [--stuck] [--state <value>]` */
export async function betsCommand(o: OpsOptions, filter: BetFilter): Promise<CommandOutput> {
  const rows = await withGateway(o, (r) => listBets(r, filter));
  return { data: rows, text: betTable(rows) };
}

/** `intents`: the transactions the gateway is landing (sent, not confirmed yet), oldest first. */
export async function intentsCommand(o: OpsOptions, now = Date.now()): Promise<CommandOutput> {
  const rows = (await withGateway(o, (r) => r.intents()))
    .sort((a, b) => a.since - b.since)
    .map((i) => ({ key: i.key, what: i.what, signature: i.signature, lastValidBlockHeight: i.lastValidBlockHeight, age: Math.round((now - i.since) / 1000) }));
  const text =
    rows.length === 0
      ? 'no transaction being landed'
      : table(
          ['key', 'what', 'signature', 'lastValidBlockHeight', 'age'],
          rows.map((r) => [r.key, r.what, r.signature, r.lastValidBlockHeight, seconds(r.age)]),
        );
  return { data: rows, text };
}

/** `bet <id>`: snapshot, chain account, settlement evidence. */
export async function betCommand(o: OpsOptions, id: string): Promise<CommandOutput> {
  return withGateway(o, async (records) => {
    const stored = await findBet(records, id);
    if (!stored) throw new OpsError(`no bet series ${id} in ${records.where}`);
    const row = betRow(stored);
    const read =
      row && /^\d+$/.test(row.seq)
        ? await readChainBet(o.rpcUrl, row.bettor, row.seq)
        : { chain: null, chainError: 'the stored snapshot does not say where the bet is on chain' };
    const record = await records.record(row?.betId ?? stored.id);
    const evidence = record
      ? {
          entry: record.entry,
          exit: record.exit,
          ticks: record.ticks,
          placeTx: record.placeTx,
          closeTx: record.closeTx,
          prevId: record.prevId,
          nextId: record.nextId,
        }
      : null;
    const data = { id: stored.id, live: stored.live, summary: row, snapshot: stored.snapshot, chain: read.chain, chainError: read.chainError, evidence };
    const text = [
      row
        ? fields({
            id: row.id,
            bet: row.betId,
            bettor: row.bettor,
            state: row.state,
            status: row.status,
            attempt: row.attempt,
            lastError: row.lastError,
            age: seconds(row.age),
            live: stored.live,
          })
        : 'snapshot is not a bet series',
      read.chain ? `on chain:\n${fields({ ...read.chain })}` : `on chain: ${read.chainError}`,
      evidence
        ? `evidence:\n${fields({ entry: JSON.stringify(evidence.entry), exit: JSON.stringify(evidence.exit), ticks: evidence.ticks.length, placeTx: evidence.placeTx, closeTx: evidence.closeTx, prevId: evidence.prevId, nextId: evidence.nextId })}`
        : 'evidence: none (the bet history does not hold it)',
    ].join('\n');
    return { data, text };
  });
}

/** `retry <id>`: asks the running gateway to retry the chain now. */
export async function retryCommand(o: OpsOptions, id: string): Promise<CommandOutput> {
  return withGateway(o, async (records) => {
    const stored = await findBet(records, id);
    if (!stored) throw new OpsError(`no bet series ${id} in ${records.where}`);
    if (!stored.live) throw new OpsError(`bet series ${stored.id} is settled; there is nothing to retry`);
    const state = betRow(stored)?.state ?? 'unknown';
    const delivery = await records.requestRetry(stored.id);
    if (delivery.receivers === 0)
      throw new OpsError(
        `no running gateway took the retry request for bet series ${stored.id} (${delivery.via === 'redis' ? 'nobody subscribes to the retry channel' : 'the request file was not picked up'}): is the gateway running on these stores?`,
        4,
      );
    const data = { ok: true, id: stored.id, state, via: delivery.via, receivers: delivery.receivers };
    return { data, text: `retry of bet series ${stored.id} (state ${state}) sent to ${delivery.receivers} gateway(s) via ${delivery.via}` };
  });
}

const eventLine = (e: Sequenced<LoggedEvent>): string => {
  const { seq, type, ...rest } = e;
  return `${String(seq).padStart(8)}  ${type.padEnd(11)} ${JSON.stringify(rest)}`;
};

/** `events --since <seq>` */
export async function eventsCommand(o: OpsOptions, since: number): Promise<CommandOutput> {
  const events = await withGateway(o, (r) => readEvents(r, since));
  return { data: events, text: events.length === 0 ? `no events after seq ${since}` : events.map(eventLine).join('\n') };
}

/** `events --since <seq> --follow`: prints as they come (JSON: one object per line) until `signal` aborts. */
export async function followCommand(o: OpsOptions, since: number, print: (line: string) => void, signal: AbortSignal): Promise<void> {
  await withGateway(o, (r) => followEvents(r, since, (e) => print(o.json ? JSON.stringify(e) : eventLine(e)), signal));
}

/** `accounts` */
export async function accountsCommand(o: OpsOptions): Promise<CommandOutput> {
  const rows = await withExchange(o, listAccounts);
  const text =
    rows.length === 0
      ? 'no accounts'
      : table(
          ['id', 'name', 'cash', 'netDeposits', 'feesPaid', 'positions', 'version', 'createdAt'],
          rows.map((r) => [r.id, r.name, r.cash, r.netDeposits, r.feesPaid, r.positions.join(' '), r.version, r.createdAt]),
        );
  return { data: rows, text };
}

/** `orders <accountId>` */
export async function ordersCommand(o: OpsOptions, accountId: string, limit: number): Promise<CommandOutput> {
  const rows = await withExchange(o, (s) => listOrders(s, accountId, limit));
  const text =
    rows.length === 0
      ? `no orders in account ${accountId}`
      : table(
          ['orderId', 'state', 'symbol', 'side', 'qty', 'requested', 'price', 'fee', 'createdAt'],
          rows.map((r) => [r.orderId, r.state, r.symbol, r.side, r.qty, r.requestedQty, r.price, r.fee, r.createdAt]),
        );
  return { data: rows, text };
}

/** `order <accountId> <orderId>` */
export async function orderCommand(o: OpsOptions, accountId: string, orderId: string): Promise<CommandOutput> {
  const found = await withExchange(o, (s) => readOrder(s, accountId, orderId));
  const { fills, ...order } = found.order;
  const text = [
    fields({ ...order, state: found.state }),
    table(
      ['price', 'qty', 'gross'],
      fills.map((f) => [f.price, f.qty, f.gross]),
    ),
  ].join('\n');
  return { data: { ...found.order, state: found.state, actorSnapshot: found.actorSnapshot }, text };
}

/** `journal <accountId> [--replay-check]` */
export async function journalCommand(o: OpsOptions, accountId: string, check: boolean): Promise<CommandOutput> {
  if (!check) {
    const entries = await withExchange(o, (s) => readJournal(s, accountId));
    return {
      data: entries,
      text: table(
        ['#', 'type', 'ts', 'amount / trade'],
        entries.map((e, i) => [i + 1, e.type, e.ts, e.type === 'TRADE' ? `${e.side} ${e.qty} ${e.symbol} gross ${e.gross} fee ${e.fee}` : e.amount]),
      ),
    };
  }
  const result = await withExchange(o, (s) => replayCheck(s, accountId));
  const text = result.ok
    ? `journal of ${accountId} replays to the stored balances (${result.entries} entries)`
    : `journal of ${accountId} does NOT replay to the stored balances (${result.entries} entries):\n${table(
        ['field', 'stored', 'replayed'],
        result.differences.map((d) => [d.field, d.stored, d.replayed]),
      )}`;
  return { data: result, text, exitCode: result.ok ? 0 : 1 };
}
