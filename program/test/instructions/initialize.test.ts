/**
 * initialize: what it records and who pays for it.
 */
import { PublicKey } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { BetChain, DEFAULT_PARAMS } from '../svm.ts';

describe('initialize', () => {
  it('records roles, mint, vault, limits; no pending admin, zero liability, counter 0, next id 1; the authority pays', async () => {
    const chain = new BetChain();
    chain.createMintAndVault();
    const before = chain.lamportsOf(chain.authority.publicKey);
    chain.mustSend([await chain.initializeIx()], [chain.authority]);
    const config = chain.readConfig();
    expect(config.admin.equals(chain.admin.publicKey)).toBe(true);
    expect(config.pending_admin.equals(PublicKey.default)).toBe(true);
    expect(config.relayer.equals(chain.relayer.publicKey)).toBe(true);
    expect(config.mint.equals(chain.mint)).toBe(true);
    expect(config.vault.equals(chain.vault)).toBe(true);
    expect(config).toMatchObject({
      counter: 0n,
      next_bet_id: 1n,
      min_amount: DEFAULT_PARAMS.minAmount,
      max_amount: DEFAULT_PARAMS.maxAmount,
      multiplier_bps: DEFAULT_PARAMS.multiplierBps,
      expiry_seconds: DEFAULT_PARAMS.expirySeconds,
      refund_after_seconds: DEFAULT_PARAMS.refundAfterSeconds,
      open_liability: 0n,
      paused: 0,
    });
    const account = chain.readAccount(chain.config)!;
    expect(account.data.length).toBe(234);
    const rent = chain.svm.minimumBalanceForRentExemption(234n);
    expect(account.lamports).toBe(rent);
    expect(before - chain.lamportsOf(chain.authority.publicKey)).toBe(rent + 5_000n);
  });
});
