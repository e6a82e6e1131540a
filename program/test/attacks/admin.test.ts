/**
 * The admin instructions (set_paused, set_relayer, propose_admin, accept_admin, withdraw): an
 * attacker cannot act as admin, through a forged config, or withdraw into the open liability.
 */
import { PublicKey } from '@solana/web3.js';
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { beforeEach, describe, expect, it } from 'vitest';
import { forgeCopy, tokenAccountAt } from '../forge.ts';
import { expectRefused } from '../refusal.ts';
import { BetChain, DEFAULT_PARAMS, patchAccount } from '../svm.ts';
import { STAKE, PRICE, newChain, stranger } from './support.ts';

let chain: BetChain;

describe('admin instructions: attacker', () => {
  beforeEach(async () => {
    chain = new BetChain();
    await chain.setUp(DEFAULT_PARAMS, 10_000_000_000n);
  });

  it('set_paused: not as a stranger, the relayer, or without the admin signature', async () => {
    const thief = stranger(chain);
    expectRefused(chain.send([await chain.setPausedIx(1, { admin: thief.publicKey })], [thief]), 'Unauthorized');
    expectRefused(chain.send([await chain.setPausedIx(1, { admin: chain.relayer.publicKey })], [chain.relayer]), 'Unauthorized');
    expectRefused(chain.send([patchAccount(await chain.setPausedIx(1), 'set_paused', 'admin', { isSigner: false })], [thief]), 'MissingSignature');
    expect(chain.readConfig().paused).toBe(0);
  });

  it('set_paused: not through a forged config naming it admin, or another program account', async () => {
    const thief = stranger(chain);
    const forged = forgeCopy(chain, chain.config, (data) => data.set(thief.publicKey.toBytes(), 8));
    expectRefused(chain.send([await chain.setPausedIx(1, { config: forged, admin: thief.publicKey })], [thief]), 'InvalidPda');
    const ata = getAssociatedTokenAddressSync(chain.mint, chain.config, true);
    expectRefused(chain.send([await chain.setPausedIx(1, { config: ata })], [chain.admin]), 'InvalidAccountOwner');
    expectRefused(chain.send([patchAccount(await chain.setPausedIx(1), 'set_paused', 'config', { isWritable: false })], [chain.admin]), 'AccountNotWritable');
    expect(chain.readConfig().paused).toBe(0);
  });

  it('set_relayer: not signed by the relayer (it cannot name itself or a friend), a stranger, or unsigned', async () => {
    const thief = stranger(chain);
    expectRefused(chain.send([await chain.setRelayerIx(thief.publicKey, { admin: chain.relayer.publicKey })], [chain.relayer]), 'Unauthorized');
    expectRefused(chain.send([await chain.setRelayerIx(thief.publicKey, { admin: thief.publicKey })], [thief]), 'Unauthorized');
    expectRefused(
      chain.send([patchAccount(await chain.setRelayerIx(thief.publicKey), 'set_relayer', 'admin', { isSigner: false })], [thief]),
      'MissingSignature',
    );
    const forged = forgeCopy(chain, chain.config, (data) => data.set(thief.publicKey.toBytes(), 8));
    expectRefused(chain.send([await chain.setRelayerIx(thief.publicKey, { config: forged, admin: thief.publicKey })], [thief]), 'InvalidPda');
    expect(chain.readConfig().relayer.equals(chain.relayer.publicKey)).toBe(true);
  });

  it('propose_admin: not by the relayer, a stranger, the pending admin, or unsigned', async () => {
    const thief = stranger(chain);
    expectRefused(chain.send([await chain.proposeAdminIx(thief.publicKey, { admin: chain.relayer.publicKey })], [chain.relayer]), 'Unauthorized');
    expectRefused(chain.send([await chain.proposeAdminIx(thief.publicKey, { admin: thief.publicKey })], [thief]), 'Unauthorized');
    expectRefused(
      chain.send([patchAccount(await chain.proposeAdminIx(thief.publicKey), 'propose_admin', 'admin', { isSigner: false })], [thief]),
      'MissingSignature',
    );
    const successor = stranger(chain);
    chain.mustSend([await chain.proposeAdminIx(successor.publicKey)], [chain.admin]);
    expectRefused(chain.send([await chain.proposeAdminIx(thief.publicKey, { admin: successor.publicKey })], [successor]), 'Unauthorized');
    expect(chain.readConfig().pending_admin.equals(successor.publicKey)).toBe(true);
  });

  it('accept_admin: not by a key that is not pending (stranger, relayer, the admin), nor unsigned', async () => {
    const successor = stranger(chain);
    const thief = stranger(chain);
    chain.mustSend([await chain.proposeAdminIx(successor.publicKey)], [chain.admin]);
    expectRefused(chain.send([await chain.acceptAdminIx(thief.publicKey)], [thief]), 'NotPendingAdmin');
    expectRefused(chain.send([await chain.acceptAdminIx(chain.relayer.publicKey)], [chain.relayer]), 'NotPendingAdmin');
    expectRefused(chain.send([await chain.acceptAdminIx(chain.admin.publicKey)], [chain.admin]), 'NotPendingAdmin');
    expectRefused(
      chain.send([patchAccount(await chain.acceptAdminIx(successor.publicKey), 'accept_admin', 'new_admin', { isSigner: false })], [thief]),
      'MissingSignature',
    );
    // After a cancel, the once-proposed key cannot accept.
    chain.mustSend([await chain.proposeAdminIx(PublicKey.default)], [chain.admin]);
    expectRefused(chain.send([await chain.acceptAdminIx(successor.publicKey)], [successor]), 'NoPendingAdmin');
    expect(chain.readConfig().admin.equals(chain.admin.publicKey)).toBe(true);
  });

  it('withdraw: not by the relayer or a stranger, not unsigned, not from a fake vault, not in another mint', async () => {
    const thief = stranger(chain);
    const sink = tokenAccountAt(chain, thief.publicKey, chain.mint);
    expectRefused(chain.send([await chain.withdrawIx(1n, sink, { admin: chain.relayer.publicKey })], [chain.relayer]), 'Unauthorized');
    expectRefused(chain.send([await chain.withdrawIx(1n, sink, { admin: thief.publicKey })], [thief]), 'Unauthorized');
    expectRefused(chain.send([patchAccount(await chain.withdrawIx(1n, sink), 'withdraw', 'admin', { isSigner: false })], [thief]), 'MissingSignature');
    const forged = forgeCopy(chain, chain.config, (data) => data.set(thief.publicKey.toBytes(), 8));
    expectRefused(chain.send([await chain.withdrawIx(1n, sink, { config: forged, admin: thief.publicKey })], [thief]), 'InvalidPda');
    const fakeVault = tokenAccountAt(chain, chain.config, chain.mint, 5_000n);
    expectRefused(chain.send([await chain.withdrawIx(1n, sink, { vault: fakeVault })], [chain.admin]), 'InvalidVault');
    const foreign = tokenAccountAt(chain, chain.admin.publicKey, newChain().mint);
    expectRefused(chain.send([await chain.withdrawIx(1n, foreign)], [chain.admin]), 'InvalidMint');
    expect(chain.tokenBalance(sink)).toBe(0n);
  });

  it('withdraw: not into the open liability, however it is split', async () => {
    const bettor = chain.newBettor();
    await chain.placeBet(bettor, 0, STAKE, PRICE);
    const sink = tokenAccountAt(chain, chain.admin.publicKey, chain.mint);
    const free = chain.tokenBalance(chain.vault) - chain.readConfig().open_liability;
    chain.mustSend([await chain.withdrawIx(free / 2n, sink)], [chain.admin]);
    const rest = free - free / 2n;
    expectRefused(chain.send([await chain.withdrawIx(rest + 1n, sink)], [chain.admin]), 'WithdrawBelowLiability');
    chain.mustSend([await chain.withdrawIx(rest, sink)], [chain.admin]);
    expectRefused(chain.send([await chain.withdrawIx(1n, sink)], [chain.admin]), 'WithdrawBelowLiability');
    expect(chain.tokenBalance(chain.vault)).toBe(chain.readConfig().open_liability);
  });
});
