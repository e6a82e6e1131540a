/**
 * The chain adapter's administration against the local chain: pause and resume with the admin
 * key, initialize (once, and on a chain started without it), and the vault's cover and surplus.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PublicKey } from '@solana/web3.js';
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import * as v from 'valibot';
import { configAddress } from '../../../adapters/chain/codec.ts';
import { initializeContract } from '../../../adapters/chain/initialize.ts';
import type { RpcChain } from '../../../adapters/chain/rpc-chain/index.ts';
import { TEST_PARAMS, fundedBettor, startTestChain, type TestChain } from '../support.ts';
import { STAKE, WIN, refusal, signed, onLocalChain } from './fixtures.ts';

describe('RpcChain on the local chain', () => {
  let t: TestChain;
  let chain: RpcChain;
  onLocalChain((started, adapter) => {
    t = started;
    chain = adapter;
  });

  it('pauses and resumes bet intake with the admin key (Paused); the relayer key cannot', async () => {
    const bettor = await fundedBettor(chain);
    await chain.setPaused(true);
    expect((await chain.readConfig())!.paused).toBe(true);
    const refused = await refusal(chain.placeBet(signed(bettor)));
    expect([refused.code, refused.errorName]).toEqual([6013, 'Paused']);
    await chain.setPaused(false);
    await expect(chain.placeBet(signed(bettor))).resolves.toMatchObject({ bet: { status: 0 } });
    const relayerAsAdmin = t.adapter({ keys: { relayer: t.keys.relayer, admin: t.keys.relayer } });
    expect((await refusal(relayerAsAdmin.setPaused(true))).code).toBe(6002);
  });

  it('refuses a second initialize (AlreadyInitialized) and initializeContract leaves the config alone', async () => {
    // A second initialize with the blockhash of the chain's own would be that very transaction (same
    // signers and instructions), answered as the same intent already on chain: it is sent once the
    // chain has moved past that slot, by an adapter holding no earlier blockhash.
    const [own] = await chain.rpc.call('getSignaturesForAddress', [configAddress().toBase58(), { limit: 1 }], v.array(v.object({ slot: v.number() })));
    await expect.poll(() => chain.rpc.call('getSlot', [{ commitment: 'confirmed' }], v.number()), { timeout: 10_000 }).toBeGreaterThan(own?.slot ?? 0);
    expect((await refusal(t.adapter().initialize(TEST_PARAMS))).code).toBe(6000);
    expect(await initializeContract(chain, { ...TEST_PARAMS, expirySeconds: 99n })).toBe('already-initialized');
    expect((await chain.readConfig())!.expirySeconds).toBe(TEST_PARAMS.expirySeconds);
  });

  it('refuses a bet the vault cannot cover (VaultCannotCover); the admin may withdraw only the surplus (WithdrawBelowLiability)', async () => {
    const cfg = (await chain.readConfig())!;
    const vault = await chain.vaultBalance();
    const adminToken = getAssociatedTokenAddressSync(new PublicKey(t.chain.mint), t.keys.admin.publicKey);
    await chain.faucet(t.keys.admin.publicKey); // creates the admin's token account
    const surplus = vault - cfg.openLiability;
    expect((await refusal(chain.withdraw(surplus + 1n, adminToken))).errorName).toBe('WithdrawBelowLiability');
    // a new bet brings its stake into the vault and adds its win to the liability: leave less than (win - stake) spare
    await chain.withdraw(surplus - (WIN - STAKE) / 2n, adminToken);
    const bettor = await fundedBettor(chain);
    const refused = await refusal(chain.placeBet(signed(bettor)));
    expect([refused.code, refused.errorName]).toEqual([6034, 'VaultCannotCover']);
  });
});

describe('RpcChain on a local chain started with GW_INIT=off', () => {
  let t: TestChain;
  beforeAll(async () => {
    t = await startTestChain(null);
  });
  afterAll(() => t.stop());

  it('refuses to pause an uninitialised contract, refuses bad parameters, initialises with the upgrade authority only', async () => {
    const chain = t.adapter({ vaultFunding: 0n });
    expect(await chain.readConfig()).toBeNull();
    expect((await refusal(chain.setPaused(true))).code).toBe(6001);
    expect((await refusal(chain.initialize({ ...TEST_PARAMS, expirySeconds: 0n }))).code).toBe(6012);
    // a key that is not the program's upgrade authority cannot initialise
    const squatter = t.adapter({ keys: { relayer: t.keys.relayer, admin: t.keys.admin, upgradeAuthority: t.keys.relayer } });
    expect((await refusal(squatter.initialize(TEST_PARAMS))).errorName).toBe('NotUpgradeAuthority');
    expect(await initializeContract(chain, TEST_PARAMS)).toBe('initialized');
    expect((await chain.readConfig())!.expirySeconds).toBe(TEST_PARAMS.expirySeconds);
    expect(await chain.vaultBalance()).toBe(0n);

    // an empty vault covers no bet (VaultCannotCover)
    const bettor = await fundedBettor(chain);
    expect((await refusal(chain.placeBet(signed(bettor)))).errorName).toBe('VaultCannotCover');
  });
});
