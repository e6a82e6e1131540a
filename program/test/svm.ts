/**
 * LiteSVM harness for the program tests: deploys the real .so, makes a 6-decimal mint and a
 * vault (the config PDA's ATA), funds bettors, sends real signed web3.js transactions
 * (converted to @solana/kit wire form) and decodes accounts with Anchor's BorshCoder.
 */
import { readFileSync } from 'node:fs';
import { AnchorError, BN, BorshCoder, Program, type Idl } from '@coral-xyz/anchor';
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  MINT_SIZE,
  TOKEN_PROGRAM_ID,
  AccountLayout,
  createApproveInstruction,
  createAssociatedTokenAccountIdempotentInstruction,
  createInitializeMint2Instruction,
  createMintToInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token';
import { Connection, Keypair, PublicKey, SystemProgram, Transaction, type TransactionInstruction } from '@solana/web3.js';
import { address, getTransactionDecoder, lamports } from '@solana/kit';
import { Clock, FailedTransactionMetadata, LiteSVM } from 'litesvm';
import { PROGRAM_ID, PROGRAM_SO_PATH, UPDOWN_IDL, betPda, bettorPda, configPda } from '../index.ts';
import { bigintify, type BetAccount, type BettorStateAccount, type ConfigAccount } from './decoded.ts';

/** What a transaction did: compute units and logs, or the failing custom code (when there is one). */
export type Sent =
  | { ok: true; cu: number; logs: string[] }
  | { ok: false; code: number | null; anchorName: string | null; error: string; logs: string[] };

/** Contract parameters used unless a test says otherwise (6-decimal token: 100..10000 units). */
export const DEFAULT_PARAMS = { minAmount: 100_000_000n, maxAmount: 10_000_000_000n, multiplierBps: 13_000n, expirySeconds: 15n };
/** Clock.unix_timestamp at the start of every test chain. */
export const START_TIME = 1_763_700_000n;

const toBn = (value: bigint): BN => new BN(value.toString());
const asAddress = (key: PublicKey) => address(key.toBase58());

/** One bettor: key, token account, and the bettor PDA. */
export interface Bettor {
  key: Keypair;
  token: PublicKey;
  state: PublicKey;
}

/** The program in an in-process chain, with roles, mint and vault. */
export class BetChain {
  readonly svm: LiteSVM;
  readonly admin = Keypair.generate();
  readonly relayer = Keypair.generate();
  readonly mintAuthority = Keypair.generate();
  readonly mintKey = Keypair.generate();
  readonly coder = new BorshCoder(UPDOWN_IDL);
  /** Anchor's client, used only to build instructions (its connection is never called). */
  readonly program = new Program(UPDOWN_IDL as Idl, { connection: new Connection('http://127.0.0.1:1') });
  readonly config = configPda()[0];
  readonly vault: PublicKey;

  constructor(options: { deploy?: boolean } = {}) {
    this.svm = new LiteSVM();
    if (options.deploy !== false) this.svm.addProgram(asAddress(PROGRAM_ID), readFileSync(PROGRAM_SO_PATH));
    this.vault = getAssociatedTokenAddressSync(this.mint, this.config, true);
    for (const who of [this.admin, this.relayer, this.mintAuthority]) this.airdrop(who.publicKey, 100_000_000_000n);
    this.setTime(START_TIME);
  }

  get mint(): PublicKey {
    return this.mintKey.publicKey;
  }

  /** Gives `to` lamports. */
  airdrop(to: PublicKey, amount: bigint): void {
    this.svm.airdrop(asAddress(to), lamports(amount));
  }

  /** Sets Clock.unix_timestamp (LiteSVM's clock does not move by itself). */
  setTime(unix: bigint): void {
    const clock = this.svm.getClock();
    this.svm.setClock(new Clock(clock.slot, clock.epochStartTimestamp, clock.epoch, clock.leaderScheduleEpoch, unix));
  }

  /** Clock.unix_timestamp now. */
  now(): bigint {
    return this.svm.getClock().unixTimestamp;
  }

  /** Moves to the next slot (keeping the time). */
  nextSlot(): void {
    const clock = this.svm.getClock();
    this.svm.warpToSlot(clock.slot + 1n);
    this.setTime(clock.unixTimestamp);
  }

  /** Signs with `signers` (first pays the fee) and sends; a fresh blockhash keeps repeated txs distinct. */
  send(instructions: TransactionInstruction[], signers: Keypair[]): Sent {
    const tx = new Transaction();
    tx.add(...instructions);
    tx.feePayer = signers[0]!.publicKey;
    tx.recentBlockhash = this.svm.latestBlockhash();
    tx.sign(...signers);
    const kitTx = getTransactionDecoder().decode(tx.serialize());
    const result = this.svm.sendTransaction(kitTx);
    this.svm.expireBlockhash();
    if (result instanceof FailedTransactionMetadata) {
      const logs = result.meta().logs();
      const code = customCode(result.err());
      const anchor = AnchorError.parse(logs);
      return { ok: false, code, anchorName: anchor?.error.errorCode.code ?? null, error: result.toString(), logs };
    }
    return { ok: true, cu: Number(result.computeUnitsConsumed()), logs: result.logs() };
  }

  /** Like send, but throws with the logs when the transaction fails. */
  mustSend(instructions: TransactionInstruction[], signers: Keypair[]): Extract<Sent, { ok: true }> {
    const sent = this.send(instructions, signers);
    if (!sent.ok) throw new Error(`transaction failed: ${sent.error}\n${sent.logs.join('\n')}`);
    return sent;
  }

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

  /** The initialize instruction (accounts overridable, for attacks). */
  initializeIx(params = DEFAULT_PARAMS, accounts: Partial<Record<string, PublicKey>> = {}): Promise<TransactionInstruction> {
    return this.build(
      this.method('initialize')(toBn(params.minAmount), toBn(params.maxAmount), toBn(params.multiplierBps), toBn(params.expirySeconds)),
      {
        config: this.config,
        admin: this.admin.publicKey,
        relayer: this.relayer.publicKey,
        mint: this.mint,
        vault: this.vault,
        tokenProgram: TOKEN_PROGRAM_ID,
        systemProgram: SystemProgram.programId,
        ...accounts,
      },
    );
  }

  /** Mint, vault, initialize, and `vaultFunds` tokens in the vault for payouts. */
  async setUp(params = DEFAULT_PARAMS, vaultFunds = 1_000_000_000_000n): Promise<Extract<Sent, { ok: true }>> {
    this.createMintAndVault();
    const sent = this.mustSend([await this.initializeIx(params)], [this.admin]);
    if (vaultFunds > 0n) this.mintTo(this.vault, vaultFunds);
    return sent;
  }

  /** Mints `amount` units to `token`. */
  mintTo(token: PublicKey, amount: bigint): void {
    this.mustSend([createMintToInstruction(this.mint, token, this.mintAuthority.publicKey, amount)], [this.mintAuthority]);
  }

  /** A new bettor with SOL, an ATA of the mint and `tokens` units in it. */
  newBettor(tokens = 100_000_000_000n): Bettor {
    const key = Keypair.generate();
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

  /** place_bet or place_bet_delegated for `bettor` (accounts overridable). */
  placeBetIx(
    bettor: Bettor,
    args: { id: bigint; side: number; amount: bigint; entryPrice: bigint },
    options: { delegated?: boolean; accounts?: Partial<Record<string, PublicKey>> } = {},
  ): Promise<TransactionInstruction> {
    const method = this.method(options.delegated ? 'placeBetDelegated' : 'placeBet');
    return this.build(method(toBn(args.id), args.side, toBn(args.amount), toBn(args.entryPrice)), {
      config: this.config,
      bet: betPda(args.id)[0],
      bettorState: bettor.state,
      bettor: bettor.key.publicKey,
      bettorToken: bettor.token,
      vault: this.vault,
      relayer: this.relayer.publicKey,
      tokenProgram: TOKEN_PROGRAM_ID,
      systemProgram: SystemProgram.programId,
      ...options.accounts,
    });
  }

  /** close_bet of bet `id` paying `bettor` (accounts overridable). */
  closeBetIx(id: bigint, bettor: Bettor, exitPrice: bigint, accounts: Partial<Record<string, PublicKey>> = {}): Promise<TransactionInstruction> {
    return this.build(this.method('closeBet')(toBn(exitPrice)), {
      config: this.config,
      bet: betPda(id)[0],
      bettorState: bettor.state,
      bettorToken: bettor.token,
      vault: this.vault,
      relayer: this.relayer.publicKey,
      tokenProgram: TOKEN_PROGRAM_ID,
      ...accounts,
    });
  }

  /** set_paused by the admin (accounts overridable). */
  setPausedIx(paused: number, accounts: Partial<Record<string, PublicKey>> = {}): Promise<TransactionInstruction> {
    return this.build(this.method('setPaused')(paused), { config: this.config, admin: this.admin.publicKey, ...accounts });
  }

  /** Places bet `config.next_bet_id` signed by bettor and relayer; returns the id. */
  async placeBet(bettor: Bettor, side: number, amount: bigint, entryPrice: bigint): Promise<{ id: bigint; sent: Extract<Sent, { ok: true }> }> {
    const id = this.readConfig().next_bet_id;
    const sent = this.mustSend([await this.placeBetIx(bettor, { id, side, amount, entryPrice })], [this.relayer, bettor.key]);
    return { id, sent };
  }

  /** Raw account (owner as base58), or null. */
  readAccount(key: PublicKey): { owner: string; data: Uint8Array; lamports: bigint } | null {
    const account = this.svm.getAccount(asAddress(key));
    if (!account.exists) return null;
    return { owner: account.programAddress, data: account.data as Uint8Array, lamports: account.lamports };
  }

  private decode<T>(name: string, key: PublicKey): T {
    const account = this.readAccount(key);
    if (!account) throw new Error(`${name} ${key.toBase58()} does not exist`);
    return bigintify(this.coder.accounts.decode(name, Buffer.from(account.data))) as T;
  }

  /** The decoded config PDA. */
  readConfig(): ConfigAccount {
    return this.decode('Config', this.config);
  }

  /** The decoded bet PDA `id`. */
  readBet(id: bigint): BetAccount {
    return this.decode('Bet', betPda(id)[0]);
  }

  /** The decoded bettor PDA. */
  readBettorState(bettor: Bettor): BettorStateAccount {
    return this.decode('BettorState', bettor.state);
  }

  /** SPL token amount of `token`. */
  tokenBalance(token: PublicKey): bigint {
    const account = this.readAccount(token);
    if (!account) throw new Error(`token account ${token.toBase58()} does not exist`);
    return AccountLayout.decode(account.data).amount;
  }

  private method(name: string): (...args: unknown[]) => ReturnType<NonNullable<Program['methods'][string]>> {
    const method = this.program.methods[name];
    if (!method) throw new Error(`IDL has no instruction ${name}`);
    return method as (...args: unknown[]) => ReturnType<NonNullable<Program['methods'][string]>>;
  }

  private build(
    methods: { accountsStrict(a: Record<string, PublicKey>): { instruction(): Promise<TransactionInstruction> } },
    accounts: Record<string, PublicKey | undefined>,
  ): Promise<TransactionInstruction> {
    return methods.accountsStrict(accounts as Record<string, PublicKey>).instruction();
  }
}

/** The custom program error code inside a LiteSVM transaction error (InstructionError(_, Custom(n))), if any. */
function customCode(err: unknown): number | null {
  if (typeof err !== 'object' || err === null || !('err' in err) || typeof err.err !== 'function') return null;
  const inner: unknown = err.err();
  if (typeof inner === 'object' && inner !== null && 'code' in inner && typeof inner.code === 'number') return inner.code;
  return null;
}

export { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_PROGRAM_ID, betPda, bettorPda, configPda, PROGRAM_ID };
export type { BetAccount, BettorStateAccount, ConfigAccount } from './decoded.ts';
export { patchAccount } from './forge.ts';
