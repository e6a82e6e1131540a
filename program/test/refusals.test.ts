/**
 * Every custom error code of the program (IDL errors 6000..6054) is reachable, each from its
 * own check, except the reserved 6018 that no check raises any more; a refused transaction
 * changes nothing. The tests of each family of checks are in refusals/; this file runs them in
 * one describe and checks that every error was reached.
 */
import { describe, expect, it } from 'vitest';
import { ERRORS } from '../index.ts';
import { expectRefused } from './refusal.ts';
import { accountRefusals } from './refusals/accounts.ts';
import { intentRefusals } from './refusals/intents.ts';
import { lifecycleRefusals } from './refusals/lifecycle.ts';
import { placementRefusals } from './refusals/placement.ts';
import { priceRefusals } from './refusals/prices.ts';
import { setupRefusals } from './refusals/setup.ts';
import { placeArgs, ready } from './refusals/support.ts';

describe('refusals: one distinct code per check', () => {
  const reached = new Set<string>();
  const refused = (sent: Parameters<typeof expectRefused>[0], name: string): void => {
    expectRefused(sent, name);
    reached.add(name);
  };

  setupRefusals(refused);
  accountRefusals(refused);
  placementRefusals(refused);
  lifecycleRefusals(refused);
  priceRefusals(refused);
  intentRefusals(refused);

  it('a refused transaction changes nothing', async () => {
    const { chain, bettor } = await ready();
    const before = [chain.readAccount(chain.config)?.data, chain.tokenBalance(bettor.token), chain.tokenBalance(chain.vault)];
    refused(chain.send([await placeArgs(chain, bettor, { side: 5 })], [chain.relayer, bettor.key]), 'InvalidSide');
    expect([chain.readAccount(chain.config)?.data, chain.tokenBalance(bettor.token), chain.tokenBalance(chain.vault)]).toEqual(before);
    expect(chain.readAccount(bettor.state)).toBeNull();
  });

  it('every IDL error was reached above, except the reserved BetIdMismatch', () => {
    const expected = ERRORS.map((e) => e.name).filter((name) => name !== 'BetIdMismatch');
    expect([...reached].sort()).toEqual(expected.sort());
  });
});
