import { expect, it } from 'vitest';
import { ChainUnavailable, ProgramRefusal } from '../../adapters/chain/port.ts';
import { refusal } from '../../runtime/gateway/refusals.ts';
import { HttpError } from '../http.ts';
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
    ['chain_unavailable', 500],
    ['no_price', 503],
  ] as const;
  for (const [kind, status] of cases) {
    const e = await thrown(async () => orRefuse(refusal(kind, kind)));
    expect([e.status, e.body]).toEqual([status, { error: kind }]);
  }
  expect(orRefuse({ ok: 1 })).toEqual({ ok: 1 });
});

it('turns an unreachable chain into 500 and an uninitialised program into 409; anything else passes through', async () => {
  expect((await thrown(() => answering(async () => Promise.reject(new ChainUnavailable('down'))))).status).toBe(500);
  expect((await thrown(() => answering(async () => Promise.reject(new ProgramRefusal(6001, 'NotInitialized', 'x'))))).status).toBe(409);
  await expect(answering(async () => Promise.reject(new ProgramRefusal(6005, 'Other', 'x')))).rejects.toBeInstanceOf(ProgramRefusal);
  await expect(answering(async () => 5)).resolves.toBe(5);
});
