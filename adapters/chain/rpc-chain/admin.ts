/**
 * The JSON-RPC chain port's writes outside betting (docs/architecture.md#the-contract: roles are
 * separate): initialising the contract (upgrade authority), pausing and withdrawing the surplus
 * (admin), and faucet grants of the local test mint (mint authority).
 */
import { PublicKey, type TransactionInstruction } from '@solana/web3.js';
import { createAssociatedTokenAccountIdempotentInstruction, createMintToInstruction } from '@solana/spl-token';
import { configAddress, initializeIx, setPausedIx, tokenAccountOf, withdrawIx } from '../codec.ts';
import { fundFromFaucet } from '../faucet.ts';
import type { InitParams } from '../port.ts';
import { VAULT_FUNDING } from './options.ts';
import { RpcChainReads } from './reads.ts';

/** The port's reads with the contract's administration. */
export class RpcChainAdmin extends RpcChainReads {
  /** Creates the vault (ATA of the config PDA), funds it, and initialises the contract — one transaction, signed by the upgrade authority. */
  async initialize(params: InitParams): Promise<string> {
    const authority = this.keys.upgradeAuthority;
    if (!authority) throw new Error("initialize needs the program's upgrade authority key");
    const admin = this.keys.admin?.publicKey ?? this.opts.adminAddress;
    if (!admin) throw new Error("initialize needs the admin's address");
    const mint = this.opts.mint ?? (await this.requireStatics()).mint;
    const config = configAddress();
    const vault = tokenAccountOf(mint, config);
    const funding = this.opts.vaultFunding ?? VAULT_FUNDING;
    const minter = this.keys.mintAuthority;
    const ixs: TransactionInstruction[] = [createAssociatedTokenAccountIdempotentInstruction(authority.publicKey, vault, config, mint)];
    if (funding > 0n && minter) ixs.push(createMintToInstruction(mint, vault, minter.publicKey, funding));
    ixs.push(initializeIx({ authority: authority.publicKey, admin, relayer: this.relayer, mint, vault }, params));
    const { signature, slot } = await this.sender.land('initialize', ixs, authority, minter && funding > 0n ? [minter] : []);
    await this.caughtUp(slot, [config]);
    return signature;
  }

  async setPaused(paused: boolean): Promise<string> {
    const admin = this.keys.admin;
    if (!admin) throw new Error('set_paused needs the admin key');
    const { signature, slot } = await this.sender.land('set_paused', [setPausedIx(admin.publicKey, paused)], admin);
    await this.caughtUp(slot, [configAddress()]);
    return signature;
  }

  /** Admin: moves `amount` out of the vault to `destination` (a token account of the mint); the program allows only the surplus above the open liability. */
  async withdraw(amount: bigint, destination: PublicKey): Promise<string> {
    const admin = this.keys.admin;
    if (!admin) throw new Error('withdraw needs the admin key');
    const { vault } = await this.requireStatics();
    const { signature, slot } = await this.sender.land('withdraw', [withdrawIx({ admin: admin.publicKey, vault, destination }, amount)], admin);
    await this.caughtUp(slot, [vault, destination]);
    return signature;
  }

  /** Every call is a grant of its own (docs/gateway-api.md#faucet): six calls at once are six grants. */
  faucet(address: PublicKey): Promise<string> {
    return this.grant(address);
  }

  private async grant(address: PublicKey): Promise<string> {
    const minter = this.keys.mintAuthority;
    if (!minter) throw new Error("the faucet needs the test mint's authority key");
    const mint = this.statics?.mint ?? (await this.readConfig().then((c) => (c ? new PublicKey(c.mint) : this.opts.mint)));
    if (!mint) throw new Error('faucet: no mint known (contract not initialised and no mint configured)');
    const { signature, slot } = await fundFromFaucet(this.rpc, this.sender, minter, mint, address);
    // the balance a client reads next includes the grant
    await this.caughtUp(slot, [tokenAccountOf(mint, address)]);
    return signature;
  }
}
