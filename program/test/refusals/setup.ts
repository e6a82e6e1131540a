/**
 * Refusals of setting the contract up and changing its roles: initialize twice or not at all,
 * bad parameters, roles that are not distinct, initialize without the upgrade authority, an admin
 * change nobody proposed.
 */
import { Keypair } from '@solana/web3.js';
import { expect, it } from 'vitest';
import { BetChain, DEFAULT_PARAMS } from '../svm.ts';
import { STAKE, PRICE, ready, type Refused } from './support.ts';

/** Registers the tests (inside the refusals describe). */
export function setupRefusals(refused: Refused): void {
  it('AlreadyInitialized: a second initialize', async () => {
    const { chain } = await ready();
    refused(chain.send([await chain.initializeIx()], [chain.authority]), 'AlreadyInitialized');
  });

  it('NotInitialized: set_paused and place_bet before initialize', async () => {
    const chain = new BetChain();
    chain.createMintAndVault();
    refused(chain.send([await chain.setPausedIx(1)], [chain.admin]), 'NotInitialized');
    const bettor = chain.newBettor();
    refused(chain.send([await chain.placeBetIx(bettor, { side: 0, amount: STAKE, entryPrice: PRICE })], [chain.relayer, bettor.key]), 'NotInitialized');
  });

  it('InvalidParameters: min 0, max < min, multiplier below 1x, expiry 0, refund delay 0 or negative', async () => {
    for (const params of [
      { ...DEFAULT_PARAMS, minAmount: 0n },
      { ...DEFAULT_PARAMS, maxAmount: DEFAULT_PARAMS.minAmount - 1n },
      { ...DEFAULT_PARAMS, multiplierBps: 9_999n },
      { ...DEFAULT_PARAMS, expirySeconds: 0n },
      { ...DEFAULT_PARAMS, refundAfterSeconds: 0n },
      { ...DEFAULT_PARAMS, refundAfterSeconds: -1n },
    ]) {
      const chain = new BetChain();
      chain.createMintAndVault();
      refused(chain.send([await chain.initializeIx(params)], [chain.authority]), 'InvalidParameters');
    }
  });

  it('RolesNotDistinct: initialize, set_relayer, propose_admin and accept_admin keep admin and relayer apart', async () => {
    const fresh = new BetChain();
    fresh.createMintAndVault();
    refused(fresh.send([await fresh.initializeIx(DEFAULT_PARAMS, { relayer: fresh.admin.publicKey })], [fresh.authority]), 'RolesNotDistinct');

    const { chain } = await ready();
    refused(chain.send([await chain.setRelayerIx(chain.admin.publicKey)], [chain.admin]), 'RolesNotDistinct');
    refused(chain.send([await chain.proposeAdminIx(chain.relayer.publicKey)], [chain.admin]), 'RolesNotDistinct');
    // The proposed admin becomes the relayer before accepting: accepting would merge the roles.
    const successor = Keypair.generate();
    chain.airdrop(successor.publicKey, 1_000_000_000n);
    chain.mustSend([await chain.proposeAdminIx(successor.publicKey)], [chain.admin]);
    chain.mustSend([await chain.setRelayerIx(successor.publicKey)], [chain.admin]);
    refused(chain.send([await chain.acceptAdminIx(successor.publicKey)], [successor]), 'RolesNotDistinct');
    expect(chain.readConfig().admin.equals(chain.admin.publicKey)).toBe(true);
  });

  it('InvalidProgramAccount / InvalidProgramData / NotUpgradeAuthority: initialize checks the upgrade authority', async () => {
    const chain = new BetChain();
    chain.createMintAndVault();
    refused(chain.send([await chain.initializeIx(DEFAULT_PARAMS, { program: chain.mint })], [chain.authority]), 'InvalidProgramAccount');
    refused(chain.send([await chain.initializeIx(DEFAULT_PARAMS, { programData: chain.vault })], [chain.authority]), 'InvalidProgramData');
    const stranger = Keypair.generate();
    chain.airdrop(stranger.publicKey, 10_000_000_000n);
    refused(chain.send([await chain.initializeIx(DEFAULT_PARAMS, { authority: stranger.publicKey })], [stranger]), 'NotUpgradeAuthority');
    expect(chain.readAccount(chain.config)).toBeNull();
  });

  it('NoPendingAdmin / NotPendingAdmin: accept_admin with nothing pending or by another key', async () => {
    const { chain } = await ready();
    const successor = Keypair.generate();
    const stranger = Keypair.generate();
    for (const k of [successor, stranger]) chain.airdrop(k.publicKey, 1_000_000_000n);
    refused(chain.send([await chain.acceptAdminIx(successor.publicKey)], [successor]), 'NoPendingAdmin');
    chain.mustSend([await chain.proposeAdminIx(successor.publicKey)], [chain.admin]);
    refused(chain.send([await chain.acceptAdminIx(stranger.publicKey)], [stranger]), 'NotPendingAdmin');
    refused(chain.send([await chain.acceptAdminIx(chain.admin.publicKey)], [chain.admin]), 'NotPendingAdmin');
  });
}
