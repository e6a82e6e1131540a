/**
 * Orders that start from the account as this process last committed it, against a real Redis
 * shared by two stores (two exchange processes): what another process changed is never
 * traded over, and a refusal is never answered from what this process remembered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BookSnapshot } from '../../adapters/feed/port.ts';
import type { ExchangeStore } from '../../adapters/store/exchange/port.ts';
import { createRedisExchangeStore } from '../../adapters/store/exchange/redis.ts';
import { dec } from '../../machines/exchange/money.ts';
import { startRedisServer, type RunningServer } from '../../test/support/servers.ts';
import { log } from '../../kernel/log.ts';
import { accountCacheOf } from './account-cache.ts';
import { depositCash, openAccount, readAccount, setCash } from './accounts.ts';
import { bookCache } from './book-cache.ts';
import type { ExchangeContext } from './context.ts';
import { placeOrder } from './orders.ts';

let redis: RunningServer;
const stores: ExchangeStore[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  for (const s of stores) await s.close();
  await redis?.stop();
});

/** One exchange process: its own store (connection and account cache) on the shared Redis. */
function process_(prefix: string): ExchangeContext {
  const store = createRedisExchangeStore(redis.url, prefix, log);
  stores.push(store);
  const books = bookCache(30_000);
  const book: BookSnapshot = { symbol: 'SOLUSDT', bids: [['99', '1000']], asks: [['100', '1000']], ts: Date.now() + 60_000 };
  books.put(book);
  return { store, books, now: () => new Date(), log };
}

const buy = (ctx: ExchangeContext, accountId: string, qty: string) => placeOrder(ctx, { accountId, symbol: 'SOLUSDT', side: 'BUY', qty, idempotencyKey: null });
/** Opens an account with `initialCash` and no fee; its id. */
async function open(ctx: ExchangeContext, name: string, initialCash: string): Promise<string> {
  const opened = await openAccount(ctx, name, dec(initialCash), dec('0'));
  if (!opened.ok) throw new Error(opened.message);
  return opened.value.id;
}
const cash = async (ctx: ExchangeContext, id: string) => {
  const a = await readAccount(ctx, id);
  if (!a.ok) throw new Error(a.message);
  return a.value.cash;
};

describe('orders from the remembered account', () => {
  it('an order after another process traded on the account commits on what the store holds, not on what this process remembered', async () => {
    const a = process_('two-traders');
    const b = process_('two-traders');
    const id = await open(a, 'shared', '1000');
    expect((await buy(a, id, '1')).ok).toBe(true); // a now remembers cash 900
    expect(accountCacheOf(a.store).get(id)?.balances.cash.toFixed()).toBe('900');
    expect((await buy(b, id, '2')).ok).toBe(true); // cash 700, behind a's back
    const third = await buy(a, id, '1');
    expect(third).toMatchObject({ ok: true, value: { body: { cash: '600.0000000000', positionQty: '4.0000000000' } } });
    expect(await cash(b, id)).toBe('600.0000000000');
  });

  it('a refusal is decided on a fresh read: money deposited by another process is spent, money withdrawn is not', async () => {
    const a = process_('refusals');
    const b = process_('refusals');
    const id = await open(a, 'refusals', '150');
    expect((await buy(a, id, '1')).ok).toBe(true); // a remembers cash 50
    expect((await depositCash(b, id, dec('1000'))).ok).toBe(true);
    // from memory a would refuse (50 < 200); the store holds 1050
    expect(await buy(a, id, '2')).toMatchObject({ ok: true, value: { body: { cash: '850.0000000000' } } });
    expect((await setCash(b, id, dec('10'))).ok).toBe(true);
    // from memory a would buy (850 >= 100); the store holds 10
    expect(await buy(a, id, '1')).toMatchObject({ ok: false, code: 'INSUFFICIENT_FUNDS' });
    expect(await cash(a, id)).toBe('10.0000000000');
  });

  it('an account deleted by another process is not found, and is forgotten', async () => {
    const a = process_('deleted');
    const b = process_('deleted');
    const id = await open(a, 'gone', '1000');
    expect((await buy(a, id, '1')).ok).toBe(true);
    expect(await b.store.deleteAccount(id)).toBe(true);
    expect(await buy(a, id, '1')).toMatchObject({ ok: false, code: 'ACCOUNT_NOT_FOUND' });
    expect(accountCacheOf(a.store).get(id)).toBeUndefined();
  });
});
