import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LoggedEvent } from '../event-log/port.ts';
import { openGatewayJournal, readJournalRecords } from './gateway-journal.ts';
import { snapshotStoreContract } from '../snapshot/contract.ts';
import { betHistoryContract, record } from '../bet-history/contract.ts';
import { describePriceHistory } from '../price-history/contract.ts';
import { tempDir } from '../../../test/support/temp-dir.ts';

const root = tempDir('journal-store-');
let n = 0;
const freshPath = () => join(root, `${n++}`, 'journal.log');
afterAll(() => rmSync(root, { recursive: true, force: true }));

type Ev = LoggedEvent & { id?: string; price?: string };

snapshotStoreContract('journal file', () => {
  const s = openGatewayJournal<Ev, Ev & { type: 'bet_open' | 'bet_closed'; id: string }>(freshPath());
  return { store: s.snapshots, events: s.eventLog };
});

betHistoryContract('journal file', () => openGatewayJournal<Ev, Ev & { type: 'bet_open'; id: string }>(freshPath()).betHistory);

describePriceHistory('journal file', async (retention) => openGatewayJournal(freshPath(), retention ? { retention } : {}).history);

describe('journal store', () => {
  it('reads a signed tick back in signed form after a reopen (docs/decisions.md#signed-prices)', async () => {
    const path = freshPath();
    const signed = { seq: 7, signature: `${'B'.repeat(86)}==`, signer: '11111111111111111111111111111111' };
    const a = openGatewayJournal<Ev, Ev & { type: 'bet_open'; id: string }>(path);
    await a.history.append({ price: '150.00000000', ts: 1_000, signed });
    await a.history.append({ price: '150.00000001', ts: 2_000 });
    await a.close();
    const b = openGatewayJournal<Ev, Ev & { type: 'bet_open'; id: string }>(path);
    expect(await b.history.between(0, 3_000)).toEqual([
      { price: '150.00000000', ts: 1_000, signed },
      { price: '150.00000001', ts: 2_000 },
    ]);
    await b.close();
  });

  it("writes the history records a commit carries in the commit's line, and reads them back after a reopen", async () => {
    const path = freshPath();
    const a = openGatewayJournal<Ev, Ev & { type: 'bet_open' | 'bet_closed'; id: string }>(path);
    await a.snapshots.commit('1', { snapshot: { status: 'active' }, final: false, events: [{ type: 'bet_open', id: '1' }], rev: 1, records: [record('1')] });
    expect((await a.betHistory.get('1'))?.status).toBe(0);
    const closed = record('1', { status: 1, exitPrice: 15_000_000_001, closedAt: 1_763_700_020_000, netUnits: '30000000', closeTx: 'sig-close' });
    await a.snapshots.commit('1', { snapshot: { status: 'done' }, final: true, events: [{ type: 'bet_closed', id: '1' }], rev: 2, records: [closed] });
    // the record is in the same line as the snapshot and its event: one append, so one kill cannot split them
    const lines = readFileSync(path, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(lines.at(-1)).toMatchObject({ k: 's', id: '1', f: 1, ev: [{ e: { type: 'bet_closed' } }], h: [{ id: '1', status: 1, closeTx: 'sig-close' }] });
    // a commit whose rev was already stored writes no record either
    await a.snapshots.commit('1', { snapshot: { status: 'done' }, final: true, events: [], rev: 2, records: [record('1')] });
    await a.close();

    const b = openGatewayJournal<Ev, Ev & { type: 'bet_open'; id: string }>(path);
    expect(await b.betHistory.get('1')).toEqual(closed);
    expect(readJournalRecords(path).betHistory.all()).toEqual([closed]);
    await b.close();
  });

  it('keeps the history through compaction and pruning', async () => {
    const path = freshPath();
    const a = openGatewayJournal<Ev, Ev & { type: 'bet_open'; id: string }>(path, { compactSlack: 10 });
    for (let i = 1; i <= 30; i++) {
      await a.snapshots.commit(String(i), {
        snapshot: { status: 'active' },
        final: false,
        events: [{ type: 'bet_open', id: String(i) }],
        rev: 1,
        records: [record(String(i), { openedAt: i })],
      });
    }
    expect(await a.betHistory.pruneOpenedBefore(11)).toBe(10);
    await a.close();
    const b = openGatewayJournal<Ev, Ev & { type: 'bet_open'; id: string }>(path);
    expect(await b.betHistory.get('10')).toBeNull();
    expect((await b.betHistory.pageOf(record('1').bettor, 100)).length).toBe(20);
    await b.close();
  });

  it('reads snapshots and history records back from the file at once, across compactions and after a reopen, whatever their characters', async () => {
    const path = freshPath();
    type Bet = Ev & { type: 'bet_open'; id: string };
    const a = openGatewayJournal<Ev, Bet>(path, { compactSlack: 10 });
    const snap = (i: number) => ({ status: 'active', note: `ü€😀 "q" \\ ${i}` });
    const rec = (i: number) => record(String(i), { openedAt: i, placeTx: `tx-ü€😀-${i}` });
    for (let i = 1; i <= 40; i++) {
      await a.history.append({ price: '150.00000000', ts: i }); // lines that are not bets, between them
      await a.eventLog.append({ type: 'price', price: `ü€😀${i}` });
      const committed = a.snapshots.commit(String(i), {
        snapshot: snap(i),
        final: false,
        events: [{ type: 'bet_open', id: String(i) }],
        rev: 1,
        records: [rec(i)],
      });
      // written, its sync not waited for: read back all the same
      expect(await a.snapshots.load(String(i))).toEqual(snap(i));
      expect(await a.betHistory.get(String(i))).toEqual(rec(i));
      await committed;
    }
    expect(readFileSync(path, 'utf8')).toContain('{"k":"h"'); // compacted (a commit's records get lines of their own): the texts moved
    const closed = record('3', { status: 1, exitPrice: 15_000_000_001, closedAt: 5, netUnits: '1', closeTx: 'sig-ü' });
    await a.betHistory.put(closed);
    const expected = Array.from({ length: 40 }, (_, k) => (k + 1 === 3 ? closed : rec(k + 1)));
    const expectedEvents = Array.from({ length: 40 }, (_, k) => [
      { type: 'price', price: `ü€😀${k + 1}`, seq: 2 * k + 1 },
      { type: 'bet_open', id: String(k + 1), seq: 2 * k + 2 },
    ]).flat();
    expect(await a.eventLog.readSince(0)).toEqual(expectedEvents);
    for (let i = 1; i <= 40; i++) {
      expect(await a.snapshots.load(String(i))).toEqual(snap(i));
      expect(await a.betHistory.get(String(i))).toEqual(expected[i - 1]);
    }
    await a.close();

    const b = openGatewayJournal<Ev, Bet>(path, { compactSlack: 10 });
    expect((await b.snapshots.loadLive()).map((s) => s.snapshot)).toEqual(Array.from({ length: 40 }, (_, k) => snap(k + 1)));
    expect(await b.betHistory.closedSince(0)).toEqual([closed]);
    expect(await b.eventLog.readSince(0)).toEqual(expectedEvents);
    expect(await b.betHistory.pageOf(closed.bettor, 100)).toEqual([...expected].reverse());
    await b.snapshots.commit('41', { snapshot: snap(41), final: false, events: [{ type: 'bet_open', id: '41' }], rev: 1, records: [rec(41)] });
    for (let i = 42; i <= 60; i++) await b.history.append({ price: '151.00000000', ts: 100 + i }); // past another compaction
    expect(await b.snapshots.load('41')).toEqual(snap(41));
    expect(await b.betHistory.get('41')).toEqual(rec(41));
    expect(await b.betHistory.get('3')).toEqual(closed);
    expect(await b.eventLog.readSince(70)).toEqual([...expectedEvents.slice(70), { type: 'bet_open', id: '41', seq: 81 }]);
    await b.close();
  });

  it('holds where a snapshot, an event or a history record lies in the file, not its text (docs/operations.md#memory), also after a reopen', async () => {
    const path = freshPath();
    const a = openGatewayJournal<Ev, Ev & { type: 'bet_open'; id: string }>(path);
    await a.eventLog.append({ type: 'price', price: 'p-aaaa' });
    await a.snapshots.commit('1', {
      snapshot: { status: 'aaaa' },
      final: false,
      events: [{ type: 'bet_open', id: 'e-aaaa' }],
      rev: 1,
      records: [record('1', { placeTx: 'tx-aaaa' })],
    });
    const events = async (store: typeof a) => (await store.eventLog.readSince(0)).map((e) => [e.seq, e.price ?? e.id]);
    // the file changed under the store, same length: what is read is what the file now says
    const swap = (from: string, to: string) => writeFileSync(path, readFileSync(path, 'utf8').replaceAll(from, to));
    swap('aaaa', 'bbbb');
    expect(await a.snapshots.load('1')).toEqual({ status: 'bbbb' });
    expect((await a.betHistory.get('1'))?.placeTx).toBe('tx-bbbb');
    expect(await events(a)).toEqual([
      [1, 'p-bbbb'],
      [2, 'e-bbbb'],
    ]);
    await a.close();
    const b = openGatewayJournal<Ev, Ev & { type: 'bet_open'; id: string }>(path);
    swap('bbbb', 'cccc');
    expect(await b.snapshots.load('1')).toEqual({ status: 'cccc' });
    expect((await b.betHistory.get('1'))?.placeTx).toBe('tx-cccc');
    expect(await events(b)).toEqual([
      [1, 'p-cccc'],
      [2, 'e-cccc'],
    ]);
    await b.close();
  });

  it('takes in the history file an older version kept beside the journal, once', async () => {
    const path = freshPath();
    const legacy = join(dirname(path), 'history.log');
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(
      legacy,
      `${JSON.stringify(record('5'))}\n${JSON.stringify(record('5', { status: 2, closedAt: 1, netUnits: '-100000000' }))}\n${JSON.stringify(record('6'))}\n`,
    );
    const a = openGatewayJournal<Ev, Ev & { type: 'bet_open'; id: string }>(path);
    expect((await a.betHistory.get('5'))?.status).toBe(2);
    expect(existsSync(legacy)).toBe(false);
    await a.close();
    const b = openGatewayJournal<Ev, Ev & { type: 'bet_open'; id: string }>(path);
    expect((await b.betHistory.pageOf(record('5').bettor, 10)).map((r) => r.id)).toEqual(['6', '5']);
    await b.close();
  });

  it('gives back after a reopen exactly what it held: ticks, events with their seqs, snapshots with their revs', async () => {
    const path = freshPath();
    const a = openGatewayJournal<Ev, Ev & { type: 'bet_open'; id: string }>(path);
    await a.history.append({ price: '150.00000000', ts: 1_000 });
    await a.history.append({ price: '151.00000000', ts: 2_000 });
    await a.eventLog.append({ type: 'price', price: '150.00000000' });
    await a.snapshots.commit('7', { snapshot: { status: 'active', n: 1 }, final: false, events: [{ type: 'bet_open', id: '7' }], rev: 3 });
    await a.eventLog.append({ type: 'price', price: '151.00000000' });
    await a.close();

    const b = openGatewayJournal<Ev, Ev & { type: 'bet_open'; id: string }>(path);
    expect(await b.history.latest()).toEqual({ price: '151.00000000', ts: 2_000 });
    expect(await b.history.atOrBefore(1_500)).toEqual({ price: '150.00000000', ts: 1_000 });
    expect((await b.eventLog.readSince(0)).map((e) => [e.seq, e.type])).toEqual([
      [1, 'price'],
      [2, 'bet_open'],
      [3, 'price'],
    ]);
    expect(await b.snapshots.loadLive()).toEqual([{ id: '7', snapshot: { status: 'active', n: 1 }, rev: 3 }]);
    expect((await b.eventLog.append({ type: 'price' })).seq).toBe(4);
    await b.close();
  });

  it('drops a torn last line (a write cut by kill -9) and keeps everything before it', async () => {
    const path = freshPath();
    const a = openGatewayJournal<Ev, Ev & { type: 'bet_open'; id: string }>(path);
    await a.snapshots.commit('1', { snapshot: { status: 'active' }, final: false, events: [{ type: 'bet_open', id: '1' }], rev: 1 });
    await a.close();
    appendFileSync(path, '{"k":"s","id":"2","s":"{\\"status\\"');
    const b = openGatewayJournal<Ev, Ev & { type: 'bet_open'; id: string }>(path);
    expect((await b.snapshots.loadLive()).map((s) => s.id)).toEqual(['1']);
    expect(await b.eventLog.lastSeq()).toBe(1);
    await b.close();
  });

  it('rewrites the file with just the state once it grows: live snapshots, the newest finals and events are kept', async () => {
    const path = freshPath();
    const a = openGatewayJournal<Ev, Ev & { type: 'bet_open' | 'bet_closed'; id: string }>(path, { compactSlack: 50, eventCapacity: 20, finalKeep: 5 });
    for (let i = 1; i <= 100; i++) {
      await a.snapshots.commit(String(i), { snapshot: { status: 'active', i }, final: false, events: [{ type: 'bet_open', id: String(i) }], rev: 1 });
      if (i % 2 === 0)
        await a.snapshots.commit(String(i), { snapshot: { status: 'done', i }, final: true, events: [{ type: 'bet_closed', id: String(i) }], rev: 2 });
    }
    expect(a.lines()).toBeLessThan(150); // 150 commits written
    await a.close();
    const b = openGatewayJournal<Ev, Ev & { type: 'bet_open' | 'bet_closed'; id: string }>(path, { eventCapacity: 20 });
    expect((await b.snapshots.loadLive()).length).toBe(50);
    expect(await b.snapshots.load('100')).toEqual({ status: 'done', i: 100 });
    expect(await b.snapshots.load('2')).toBeNull(); // an old final, retired by compaction
    expect(await b.eventLog.lastSeq()).toBe(150);
    expect((await b.eventLog.readSince(0)).map((e) => e.seq)).toEqual(Array.from({ length: 20 }, (_, i) => 131 + i));
    expect(readFileSync(path, 'utf8').split('\n').filter(Boolean).length).toBe(b.lines());
    await b.close();
  });
});
