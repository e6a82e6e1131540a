/**
 * LiteSVM harness for the program tests: deploys the real .so as an upgradeable program with a
 * known upgrade authority, makes a 6-decimal mint and a vault (the config PDA's ATA), funds
 * bettors, sends real signed web3.js transactions (converted to @solana/kit wire form), builds
 * every instruction with Anchor's client from the IDL, and decodes accounts and events with
 * Anchor's BorshCoder.
 */
import { readFileSync } from 'node:fs';
import { AnchorError, BN, BorshCoder, EventParser, Program, type Idl } from '@coral-xyz/anchor';
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
import { Connection, Keypair, type PublicKey, SystemProgram, Transaction, type TransactionInstruction } from '@solana/web3.js';
import { address, getTransactionDecoder, lamports } from '@solana/kit';
import { Clock, FailedTransactionMetadata, LiteSVM } from 'litesvm';
import { PROGRAM_ID, PROGRAM_SO_PATH, UPDOWN_IDL, UPGRADEABLE_LOADER_ID, betPda, bettorPda, configPda, programDataPda } from '../index.ts';
import { bigintify, type BetAccount, type BettorStateAccount, type ConfigAccount } from './decoded.ts';

/** What a transaction did: compute units and logs, or the failing custom code (when there is one). */
export type Sent = { ok: true; cu: number; logs: string[] } | { ok: false; code: number | null; anchorName: string | null; error: string; logs: string[] };

/** Contract parameters used unless a test says otherwise (6-decimal token: 100..10000 units). */
export const DEFAULT_PARAMS = {
  minAmount: 100_000_000n,
  maxAmount: 10_000_000_000n,
  multiplierBps: 13_000n,
  expirySeconds: 15n,
  refundAfterSeconds: 60n,
};
export type Params = typeof DEFAULT_PARAMS;
/** Clock.unix_timestamp at the start of every test chain. */
export const START_TIME = 1_763_700_000n;

/** ProgramData header as the upgradeable loader lays it out: u32 tag 3, u64 slot, Option<Pubkey>. */
const PROGRAM_DATA_AUTHORITY_TAG = 12;
const PROGRAM_DATA_HEADER = 45;

const toBn = (value: bigint): BN => new BN(value.toString());
const asAddress = (key: PublicKey) => address(key.toBase58());

/** One bettor: key, token account, and the bettor PDA. */
export interface Bettor {
  key: Keypair;
  token: PublicKey;
  state: PublicKey;
}

/** A placed bet: its global id, its seq (address seed) and its address. */
export interface PlacedBet {
  id: bigint;
  seq: bigint;
  bet: PublicKey;
  sent: Extract<Sent, { ok: true }>;
}

/** One decoded event (IDL field names, u64/i64 as bigint). */
export interface DecodedEvent {
  name: string;
  data: Record<string, unknown>;
}

type Accounts = Partial<Record<string, PublicKey>>;

/** The program in an in-process chain, with roles, mint and vault. */
export class BetChain {
  readonly svm: LiteSVM;
  /** The program's upgrade authority (the only key that may initialize); pays for the config. */
  readonly authority: Keypair;
  readonly admin = Keypair.generate();
  readonly relayer = Keypair.generate();
  readonly mintAuthority = Keypair.generate();
  readonly mintKey = Keypair.generate();
  readonly coder = new BorshCoder(UPDOWN_IDL);
  /** Anchor's client, used only to build instructions (its connection is never called). */
  readonly program = new Program(UPDOWN_IDL as Idl, { connection: new Connection('http://127.0.0.1:1') });
  readonly config = configPda()[0];
  readonly programData = programDataPda()[0];
  readonly vault: PublicKey;

  /**
   * `deploy: false` leaves the program out (tests that deploy through the loader themselves);
   * otherwise the .so is added as an upgradeable program whose ProgramData names `authority`.
   */
  constructor(options: { deploy?: boolean; authority?: Keypair } = {}) {
    this.svm = new LiteSVM();
    this.authority = options.authority ?? Keypair.generate();
    if (options.deploy !== false) {
      this.svm.addProgram(asAddress(PROGRAM_ID), readFileSync(PROGRAM_SO_PATH));
      this.setUpgradeAuthority(this.authority.publicKey);
    }
    this.vault = getAssociatedTokenAddressSync(this.mint, this.config, true);
    for (const who of [this.authority, this.admin, this.relayer, this.mintAuthority]) this.airdrop(who.publicKey, 100_000_000_000n);
    this.setTime(START_TIME);
  }

  get mint(): PublicKey {
    return this.mintKey.publicKey;
  }

  /**
   * Rewrites the upgrade authority in `programId`'s ProgramData (Some(key), or None for null)
   * exactly as the loader stores it. LiteSVM's addProgram writes an upgradeable program whose
   * ProgramData has no authority; a real deploy names the deployer (see deploy.test.ts).
   */
  setUpgradeAuthority(authority: PublicKey | null, programId = PROGRAM_ID): void {
    const key = programDataPda(programId)[0];
    const account = this.svm.getAccount(asAddress(key));
    if (!account.exists) throw new Error(`no ProgramData for ${programId.toBase58()}`);
    const data = Uint8Array.from(account.data);
    if (data.length < PROGRAM_DATA_HEADER || new DataView(data.buffer).getUint32(0, true) !== 3) throw new Error('not a ProgramData account');
    data[PROGRAM_DATA_AUTHORITY_TAG] = authority ? 1 : 0;
    data.set(authority ? authority.toBytes() : new Uint8Array(32), PROGRAM_DATA_AUTHORITY_TAG + 1);
    this.svm.setAccount({ ...account, data });
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

  /** The program's events in a transaction's logs, decoded by Anchor's EventParser from the IDL. */
  events(sent: Sent): DecodedEvent[] {
    const parser = new EventParser(PROGRAM_ID, this.coder);
    return [...parser.parseLogs(sent.logs, true)].map((event) => ({ name: event.name, data: bigintify(event.data as Record<string, unknown>) }));
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

  /** The initialize instruction, signed by `authority` (accounts overridable, for attacks). */
  initializeIx(params: Params = DEFAULT_PARAMS, accounts: Accounts = {}): Promise<TransactionInstruction> {
    const method = this.method('initialize')(
      toBn(params.minAmount),
      toBn(params.maxAmount),
      toBn(params.multiplierBps),
      toBn(params.expirySeconds),
      toBn(params.refundAfterSeconds),
    );
    return this.build(method, {
      config: this.config,
      authority: this.authority.publicKey,
      admin: this.admin.publicKey,
      relayer: this.relayer.publicKey,
      mint: this.mint,
      vault: this.vault,
      program: PROGRAM_ID,
      programData: this.programData,
      tokenProgram: TOKEN_PROGRAM_ID,
      systemProgram: SystemProgram.programId,
      ...accounts,
    });
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

  /** The seq of the bettor's next bet: its state's bet_count, or 0 without a state (what a client knows). */
  nextSeq(bettor: Bettor): bigint {
    return this.readAccount(bettor.state)?.owner === PROGRAM_ID.toBase58() ? this.readBettorState(bettor).bet_count : 0n;
  }

  /** The address of the bettor's bet number `seq`. */
  betAddress(bettor: Bettor, seq: bigint): PublicKey {
    return betPda(bettor.key.publicKey, seq)[0];
  }

  /** place_bet or place_bet_delegated for `bettor` at `seq` (default: the next one; accounts overridable). */
  placeBetIx(
    bettor: Bettor,
    args: { side: number; amount: bigint; entryPrice: bigint },
    options: { delegated?: boolean; seq?: bigint; accounts?: Accounts } = {},
  ): Promise<TransactionInstruction> {
    const method = this.method(options.delegated ? 'placeBetDelegated' : 'placeBet');
    return this.build(method(args.side, toBn(args.amount), toBn(args.entryPrice)), {
      config: this.config,
      bet: this.betAddress(bettor, options.seq ?? this.nextSeq(bettor)),
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

  /** close_bet of `bet` paying `bettor` (accounts overridable). */
  closeBetIx(bet: PublicKey, bettor: Bettor, exitPrice: bigint, accounts: Accounts = {}): Promise<TransactionInstruction> {
    return this.build(this.method('closeBet')(toBn(exitPrice)), {
      config: this.config,
      bet,
      bettorState: bettor.state,
      bettorToken: bettor.token,
      vault: this.vault,
      relayer: this.relayer.publicKey,
      tokenProgram: TOKEN_PROGRAM_ID,
      ...accounts,
    });
  }

  /** refund_expired of `bet` to `bettor` (no program signer; accounts overridable). */
  refundExpiredIx(bet: PublicKey, bettor: Bettor, accounts: Accounts = {}): Promise<TransactionInstruction> {
    return this.build(this.method('refundExpired')(), {
      config: this.config,
      bet,
      bettorState: bettor.state,
      bettorToken: bettor.token,
      vault: this.vault,
      tokenProgram: TOKEN_PROGRAM_ID,
      ...accounts,
    });
  }

  /** reclaim_bet of `bet` by the relayer, rent back to the relayer (the usual payer; accounts overridable). */
  reclaimBetIx(bet: PublicKey, bettor: Bettor, accounts: Accounts = {}): Promise<TransactionInstruction> {
    return this.build(this.method('reclaimBet')(), {
      config: this.config,
      bet,
      bettorState: bettor.state,
      payer: this.relayer.publicKey,
      relayer: this.relayer.publicKey,
      ...accounts,
    });
  }

  /** close_bettor of `bettor`'s state by the relayer, rent back to the relayer (accounts overridable). */
  closeBettorIx(bettor: Bettor, accounts: Accounts = {}): Promise<TransactionInstruction> {
    return this.build(this.method('closeBettor')(), {
      config: this.config,
      bettorState: bettor.state,
      payer: this.relayer.publicKey,
      relayer: this.relayer.publicKey,
      ...accounts,
    });
  }

  /** set_paused by the admin (accounts overridable). */
  setPausedIx(paused: number, accounts: Accounts = {}): Promise<TransactionInstruction> {
    return this.build(this.method('setPaused')(paused), { config: this.config, admin: this.admin.publicKey, ...accounts });
  }

  /** set_relayer by the admin (accounts overridable). */
  setRelayerIx(newRelayer: PublicKey, accounts: Accounts = {}): Promise<TransactionInstruction> {
    return this.build(this.method('setRelayer')(newRelayer), { config: this.config, admin: this.admin.publicKey, ...accounts });
  }

  /** propose_admin by the admin (accounts overridable). */
  proposeAdminIx(newAdmin: PublicKey, accounts: Accounts = {}): Promise<TransactionInstruction> {
    return this.build(this.method('proposeAdmin')(newAdmin), { config: this.config, admin: this.admin.publicKey, ...accounts });
  }

  /** accept_admin signed by `newAdmin` (accounts overridable). */
  acceptAdminIx(newAdmin: PublicKey, accounts: Accounts = {}): Promise<TransactionInstruction> {
    return this.build(this.method('acceptAdmin')(), { config: this.config, newAdmin, ...accounts });
  }

  /** withdraw of `amount` from the vault into `destination` by the admin (accounts overridable). */
  withdrawIx(amount: bigint, destination: PublicKey, accounts: Accounts = {}): Promise<TransactionInstruction> {
    return this.build(this.method('withdraw')(toBn(amount)), {
      config: this.config,
      admin: this.admin.publicKey,
      vault: this.vault,
      destination,
      tokenProgram: TOKEN_PROGRAM_ID,
      ...accounts,
    });
  }

  /** Places the bettor's next bet, signed by bettor and relayer. */
  async placeBet(bettor: Bettor, side: number, amount: bigint, entryPrice: bigint): Promise<PlacedBet> {
    const id = this.readConfig().next_bet_id;
    const seq = this.nextSeq(bettor);
    const sent = this.mustSend([await this.placeBetIx(bettor, { side, amount, entryPrice }, { seq })], [this.relayer, bettor.key]);
    return { id, seq, bet: this.betAddress(bettor, seq), sent };
  }

  /** Raw account (owner as base58), or null. */
  readAccount(key: PublicKey): { owner: string; data: Uint8Array; lamports: bigint } | null {
    const account = this.svm.getAccount(asAddress(key));
    if (!account.exists) return null;
    return { owner: account.programAddress, data: account.data as Uint8Array, lamports: account.lamports };
  }

  /** Lamports of `key` (0 when the account does not exist). */
  lamportsOf(key: PublicKey): bigint {
    return this.readAccount(key)?.lamports ?? 0n;
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

  /** The decoded bet at `bet`. */
  readBet(bet: PublicKey): BetAccount {
    return this.decode('Bet', bet);
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

export { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_PROGRAM_ID, UPGRADEABLE_LOADER_ID, betPda, bettorPda, configPda, programDataPda, PROGRAM_ID };
export type { BetAccount, BettorStateAccount, ConfigAccount } from './decoded.ts';
export { patchAccount } from './forge.ts';
