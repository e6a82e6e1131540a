import { describe, expect, it } from 'vitest';
import { sharedTestRedis } from '../../../test/support/redis-prefix.ts';
import { describeIntentStore } from './contract.ts';
import { createRedisIntentStore } from './redis.ts';

const shared = sharedTestRedis();

describeIntentStore('redis', async () => {
  const prefix = shared.prefix();
  return { open: async () => createRedisIntentStore(shared.redis(), { prefix }) };
});

describe('redis intent store specifics', () => {
  it('a record that reaches Redis after its deadline writes nothing (its placement has given up and sent nothing)', async () => {
    const prefix = shared.prefix();
    const late = createRedisIntentStore(shared.redis(), { prefix, writeBudgetMs: -1_000 });
    const intent = {
      key: 'place_bet:late',
      what: 'place_bet',
      signature: 'sig-late',
      wire: 'AA==',
      lastValidBlockHeight: 1,
      since: Date.now(),
      owner: 'engine-1',
    };
    await expect(late.put(intent)).rejects.toThrow(/DEADLINE/); // the guarded client of a gateway reports it as RedisUnavailable
    expect(await createRedisIntentStore(shared.redis(), { prefix }).list()).toEqual([]);
  });

  it('records and removals of one turn go in one script each, with each answer its own', async () => {
    const prefix = shared.prefix();
    const store = createRedisIntentStore(shared.redis(), { prefix });
    const intent = (n: number, owner: string) => ({
      key: `place_bet:${n % 5}`,
      what: 'place_bet',
      signature: `sig-${n}`,
      wire: 'AA==',
      lastValidBlockHeight: 10,
      since: Date.now(),
      owner,
    });
    // ten records in one turn over five keys: the first of each key by engine-a wins, the second (engine-b) is refused
    const recorded = await Promise.all(Array.from({ length: 10 }, (_, n) => store.put(intent(n, n < 5 ? 'engine-a' : 'engine-b'))));
    expect(recorded).toEqual([true, true, true, true, true, false, false, false, false, false]);
    await Promise.all([store.remove('place_bet:0', 'sig-5'), store.remove('place_bet:1', 'sig-1'), store.remove('place_bet:2', 'sig-2')]);
    expect((await store.list()).map((i) => i.signature).sort()).toEqual(['sig-0', 'sig-3', 'sig-4']);
  });
});
