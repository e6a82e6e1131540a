import { expect, it } from 'vitest';
import { ChainRejected, ChainUnavailable, ProgramRefusal } from '../../adapters/chain/port.ts';
import { RedisUnavailable } from '../../adapters/store/redis/client.ts';
import { refusal } from '../../runtime/gateway/refusals.ts';
import { HttpError } from '../http/reply.ts';
import { answering, orRefuse } from './answers.ts';

const thrown = async (f: () => Promise<unknown>): Promise<HttpError> => {
  try {
    await f();
  } catch (err) {
    if (err instanceof HttpError) return err;
    throw err;
  }
  throw new Error('did not throw');
};

it('maps refusals to the spec statuses, with openBetId only for an open bet', async () => {
  const open = await thrown(async () => orRefuse(refusal('open_bet', 'has an open bet', { openBetId: '7' })));
  expect([open.status, open.body]).toEqual([409, { error: 'has an open bet', openBetId: '7' }]);
  const cases = [
    ['invalid_request', 400],
    ['not_approved', 400],
    ['forbidden', 403],
    ['not_initialized', 409],
    ['no_price', 503],
  ] as const;
  for (const [kind, status] of cases) {
    const e = await thrown(async () => orRefuse(refusal(kind, kind)));
    expect([e.status, e.body]).toEqual([status, { error: kind }]);
  }
  expect(orRefuse({ ok: 1 })).toEqual({ ok: 1 });
  // the chain being down is 503 with Retry-After, except where docs/gateway-api.md#errors says 500 (POST /bet)
  const down = await thrown(async () => orRefuse(refusal('chain_unavailable', 'the chain node is unreachable')));
  expect([down.status, down.body, down.headers]).toEqual([503, { error: 'the chain node is unreachable' }, [['Retry-After', '2']]]);
  expect((await thrown(async () => orRefuse(refusal('chain_unavailable', 'x'), 500))).status).toBe(500);
});

it('turns an unreachable chain into 503 (500 where asked), Redis down into 503 naming it, an uninitialised program into 409; anything else passes through', async () => {
  expect((await thrown(() => answering(async () => Promise.reject(new ChainUnavailable('down'))))).status).toBe(503);
  expect((await thrown(() => answering(async () => Promise.reject(new ChainUnavailable('down')), 500))).status).toBe(500);
  const redis = await thrown(() => answering(async () => Promise.reject(new RedisUnavailable('redis is unavailable: Connection is closed.'))));
  expect([redis.status, redis.body.error, redis.headers]).toEqual([503, 'redis is unavailable; retry shortly', [['Retry-After', '2']]]);
  expect((await thrown(() => answering(async () => Promise.reject(new ChainRejected('fee payer short of SOL'))))).status).toBe(502);
  expect((await thrown(() => answering(async () => Promise.reject(new ProgramRefusal(6001, 'NotInitialized', 'x'))))).status).toBe(409);
  await expect(answering(async () => Promise.reject(new ProgramRefusal(6005, 'Other', 'x')))).rejects.toBeInstanceOf(ProgramRefusal);
  await expect(answering(async () => 5)).resolves.toBe(5);
});
