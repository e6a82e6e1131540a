/**
 * LiteSVM harness for the program tests: deploys the real .so as an upgradeable program with a
 * known upgrade authority, makes a 6-decimal mint and a vault (the config PDA's ATA), funds
 * bettors, sends real signed web3.js transactions (converted to @solana/kit wire form), builds
 * every instruction with Anchor's client from the IDL, and decodes accounts and events with
 * Anchor's BorshCoder.
 *
 * This file holds the set-up flows (mint, vault, bettors, bets); the chain and its reads are in
 * harness/chain-core.ts, the instruction builders in harness/instructions.ts, the shapes in
 * harness/types.ts.
 */
import {
  MINT_SIZE,
  TOKEN_PROGRAM_ID,
  createApproveInstruction,
  createAssociatedTokenAccountIdempotentInstruction,
  createInitializeMint2Instruction,
  createMintToInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token';
import { Keypair, type PublicKey, SystemProgram } from '@solana/web3.js';
import { bettorPda } from '../index.ts';
import { ChainInstructions } from './harness/instructions.ts';
import { DEFAULT_PARAMS, type Bettor, type Params, type PlacedBet, type Sent } from './harness/types.ts';

export { DEFAULT_PARAMS, START_TIME, type Bettor, type DecodedEvent, type Params, type PlacedBet, type Sent } from './harness/types.ts';

/** The program in an in-process chain, with roles, mint and vault. */
export class BetChain extends ChainInstructions {
  /** Creates the 6-decimal mint and the vault (the config PDA's associated token account). */
  createMintAndVault(): void {
    const rent = this.svm.minimumBalanceForRentExemption(BigInt(MINT_SIZE));
    this.mustSend(
      [
        SystemProgram.createAccount({
          fromPubkey: this.mintAuthority.publicKey,
          newAccountPubkey: this.mint,
          lamports: Number(rent),
          space: MINT_SIZE,
          programId: TOKEN_PROGRAM_ID,
        }),
        createInitializeMint2Instruction(this.mint, 6, this.mintAuthority.publicKey, null),
        createAssociatedTokenAccountIdempotentInstruction(this.mintAuthority.publicKey, this.vault, this.config, this.mint),
      ],
      [this.mintAuthority, this.mintKey],
    );
  }

  /** Mint, vault, initialize by the upgrade authority, and `vaultFunds` tokens in the vault for payouts. */
  async setUp(params: Params = DEFAULT_PARAMS, vaultFunds = 1_000_000_000_000n): Promise<Extract<Sent, { ok: true }>> {
    this.createMintAndVault();
    const sent = this.mustSend([await this.initializeIx(params)], [this.authority]);
    if (vaultFunds > 0n) this.mintTo(this.vault, vaultFunds);
    return sent;
  }

  /** Mints `amount` units to `token`. */
  mintTo(token: PublicKey, amount: bigint): void {
    this.mustSend([createMintToInstruction(this.mint, token, this.mintAuthority.publicKey, amount)], [this.mintAuthority]);
  }

  /** A new bettor with SOL, an ATA of the mint and `tokens` units in it (`key`: the same bettor on several chains, for measuring). */
  newBettor(tokens = 100_000_000_000n, key = Keypair.generate()): Bettor {
    this.airdrop(key.publicKey, 10_000_000_000n);
    const token = getAssociatedTokenAddressSync(this.mint, key.publicKey);
    this.mustSend([createAssociatedTokenAccountIdempotentInstruction(key.publicKey, token, key.publicKey, this.mint)], [key]);
    if (tokens > 0n) this.mintTo(token, tokens);
    return { key, token, state: bettorPda(key.publicKey)[0] };
  }

  /** The bettor approves the relayer as SPL Token delegate for `amount`. */
  approveRelayer(bettor: Bettor, amount: bigint): void {
    this.mustSend([createApproveInstruction(bettor.token, this.relayer.publicKey, bettor.key.publicKey, amount)], [bettor.key]);
  }

  /** Places the bettor's next bet, signed by bettor and relayer. */
  async placeBet(bettor: Bettor, side: number, amount: bigint, entryPrice: bigint): Promise<PlacedBet> {
    const id = this.readConfig().next_bet_id;
    const seq = this.nextSeq(bettor);
    const sent = this.mustSend([await this.placeBetIx(bettor, { side, amount, entryPrice }, { seq })], [this.relayer, bettor.key]);
    return { id, seq, bet: this.betAddress(bettor, seq), sent };
  }
}

export { TOKEN_PROGRAM_ID, bettorPda };
export { patchAccount } from './forge.ts';
