import { describe, expect, it } from 'vitest';
import type { BetAccount } from '../../../adapters/chain/port.ts';
import { betView, contractStateView, selectBets } from './state.ts';

const bet = (id: bigint, status: BetAccount['status'], expireTime = 1000n): BetAccount => ({
  id,
  bettor: 'B111111111111111111111111111111111',
  payer: 'R111111111111111111111111111111111',
  seq: id,
  side: 'UP',
  amount: 300_000_000n,
  entryPrice: 15_012_000_000n,
  exitPrice: status === 0 ? 0n : 15_013_000_000n,
  betTime: expireTime - 15n,
  expireTime,
  status,
});

describe('views', () => {
  it('renders the contract state with strings, paused as 0/1 and human forms', () => {
    const v = contractStateView(
      {
        admin: 'A',
        relayer: 'R',
        mint: 'M',
        vault: 'V',
        pendingAdmin: null,
        refundAfterSeconds: 300n,
        openLiability: 0n,
        counter: 3n,
        nextBetId: 4n,
        minAmount: 100_000_000n,
        maxAmount: 10_000_000_000n,
        multiplierBps: 13_000n,
        expirySeconds: 15n,
        paused: true,
      },
      1_000_000_000_000n,
    );
    expect(v).toEqual({
      counter: '3',
      nextBetId: '4',
      minAmount: '100000000',
      maxAmount: '10000000000',
      minAmountHuman: '100.000000',
      maxAmountHuman: '10000.000000',
      multiplierBps: '13000',
      expirySeconds: '15',
      paused: 1,
      admin: 'A',
      relayer: 'R',
      vaultBalance: '1000000000000',
      vaultBalanceHuman: '1000000.000000',
    });
  });

  it('renders an open bet with retryAfterSeconds and a closed one with result and null retry', () => {
    expect(betView(bet(5n, 0, 1000n), 990_500)).toMatchObject({
      id: '5',
      status: 'open',
      statusCode: 0,
      result: null,
      exitPrice: 0,
      retryAfterSeconds: 10,
      amountHuman: '300.000000',
    });
    expect(betView(bet(5n, 3), 2_000_000)).toMatchObject({ status: 'closed', statusCode: 3, result: 'refunded', retryAfterSeconds: null });
    expect(betView(bet(5n, 1), 0).result).toBe('payout_done');
    expect(betView(bet(5n, 2), 0).result).toBe('house_won');
  });

  it('selects open over last, else the highest id', () => {
    expect(selectBets([])).toEqual({ open: null, last: null });
    expect(selectBets([bet(1n, 1), bet(3n, 2), bet(2n, 3)]).last?.id).toBe(3n);
    const s = selectBets([bet(1n, 1), bet(4n, 0), bet(3n, 2)]);
    expect(s.open?.id).toBe(4n);
    expect(s.last).toBeNull();
  });
});
