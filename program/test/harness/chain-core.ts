/**
 * The core of the program tests' LiteSVM harness: the chain with the real .so deployed as an
 * upgradeable program, the roles' keys, time and slots, sending signed web3.js transactions (in
 * @solana/kit wire form) and reading what they left: accounts decoded with Anchor's BorshCoder,
 * events, token balances.
 */
import { readFileSync } from 'node:fs';
import { AnchorError, BorshCoder, EventParser, Program, type Idl } from '@coral-xyz/anchor';
import { AccountLayout, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Connection, Keypair, type PublicKey, Transaction, type TransactionInstruction } from '@solana/web3.js';
import { address, getTransactionDecoder, lamports } from '@solana/kit';
import { Clock, FailedTransactionMetadata, LiteSVM } from 'litesvm';
import { PROGRAM_ID, PROGRAM_SO_PATH, UPDOWN_IDL, configPda, programDataPda } from '../../index.ts';
import { bigintify, type BetAccount, type BettorStateAccount, type ConfigAccount } from '../decoded.ts';
import { START_TIME, type Bettor, type DecodedEvent, type Sent } from './types.ts';

/** ProgramData header as the upgradeable loader lays it out: u32 tag 3, u64 slot, Option<Pubkey>. */
const PROGRAM_DATA_AUTHORITY_TAG = 12;
const PROGRAM_DATA_HEADER = 45;

export const asAddress = (key: PublicKey) => address(key.toBase58());

/** The chain, its roles and what can be read from it; instructions are built by the classes on top. */
export class ChainCore {
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
   * otherwise the .so (or `programBytes`) is added as an upgradeable program whose ProgramData names `authority`.
   */
  constructor(options: { deploy?: boolean; authority?: Keypair; programBytes?: Uint8Array } = {}) {
    this.svm = new LiteSVM();
    this.authority = options.authority ?? Keypair.generate();
    if (options.deploy !== false) {
      // `programBytes`: a test build with a check left out (attack tests: program/build/build.ts)
      this.svm.addProgram(asAddress(PROGRAM_ID), options.programBytes ?? readFileSync(PROGRAM_SO_PATH));
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
}

/** The custom program error code inside a LiteSVM transaction error (InstructionError(_, Custom(n))), if any. */
function customCode(err: unknown): number | null {
  if (typeof err !== 'object' || err === null || !('err' in err) || typeof err.err !== 'function') return null;
  const inner: unknown = err.err();
  if (typeof inner === 'object' && inner !== null && 'code' in inner && typeof inner.code === 'number') return inner.code;
  return null;
}
