/**
 * Building the updown program's instructions for the program tests with Anchor's client from
 * the IDL: every instruction with the accounts an honest caller passes, each overridable (the
 * attacks pass others).
 */
import { BN, type Program } from '@coral-xyz/anchor';
import { TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { type Keypair, PublicKey, SystemProgram, type TransactionInstruction } from '@solana/web3.js';
import { PROGRAM_ID, betPda, priceRulesPda } from '../../index.ts';
import { ed25519IntentIx, intentMessage, type IntentFields } from '../../../adapters/chain/codec/intent.ts';
import { signBytes } from '../../../adapters/chain/signing.ts';
import { ChainCore } from './chain-core.ts';
import { DEFAULT_PARAMS, type Accounts, type Bettor, type Params } from './types.ts';

const toBn = (value: bigint): BN => new BN(value.toString());

/** The instructions sysvar (where the program reads the Ed25519 instruction back). */
export const INSTRUCTIONS_SYSVAR = new PublicKey('Sysvar1nstructions1111111111111111111111111');
/** The price rules PDA. */
export const PRICE_RULES = priceRulesPda()[0];

/** Where an entry tick is: Ed25519 instruction index and its signature record. */
export interface EntryTick {
  instruction: number;
  signature: number;
}
/** Where a pair of exit ticks is: Ed25519 instruction index and the records of ticks n and n+1. */
export interface ExitTicks {
  instruction: number;
  first: number;
  next: number;
}

/** Where a delegated bet's intent is: Ed25519 instruction index, its signature record, and the intent's valid-until (unix s). */
export interface IntentRef {
  instruction: number;
  signature: number;
  validUntil: bigint;
}

/** What a test's intent says where it is not the placement's (attacks), and the key that signs it (default: the bettor's). */
export type IntentBend = Partial<IntentFields> & { signer?: Keypair };

/** A signed intent: the Ed25519 instruction verifying it, its text and signature, its valid-until. */
export interface SignedIntent {
  ix: TransactionInstruction;
  message: Uint8Array;
  signature: Uint8Array;
  validUntil: bigint;
}

/** place_bet_delegated's intent arguments: instruction, record, valid-until. */
function intentArgs(intent: IntentRef | undefined): unknown[] {
  if (!intent) throw new Error('place_bet_delegated needs an intent ref (delegatedIxs builds a signed one)');
  return [intent.instruction, intent.signature, toBn(intent.validUntil)];
}

/** How long the harness's intents stay valid by default, s. */
const INTENT_VALID_FOR = 300n;

/** The harness's chain with a builder for every instruction. */
export class ChainInstructions extends ChainCore {
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

  /** The seq of the bettor's next bet: its state's bet_count, or 0 without a state (what a client knows). */
  nextSeq(bettor: Bettor): bigint {
    return this.readAccount(bettor.state)?.owner === PROGRAM_ID.toBase58() ? this.readBettorState(bettor).bet_count : 0n;
  }

  /** The address of the bettor's bet number `seq`. */
  betAddress(bettor: Bettor, seq: bigint): PublicKey {
    return betPda(bettor.key.publicKey, seq)[0];
  }

  /**
   * place_bet or place_bet_delegated for `bettor` at `seq` (default: the next one; accounts
   * overridable); a delegated one names where its intent is (`intent`, docs/decisions.md#bet-intents).
   */
  placeBetIx(
    bettor: Bettor,
    args: { side: number; amount: bigint; entryPrice: bigint },
    options: { delegated?: boolean; seq?: bigint; accounts?: Accounts; tick?: EntryTick; intent?: IntentRef } = {},
  ): Promise<TransactionInstruction> {
    const common = [args.side, toBn(args.amount), toBn(args.entryPrice), options.tick?.instruction ?? 0, options.tick?.signature ?? 0];
    const method = options.delegated ? this.method('placeBetDelegated')(...common, ...intentArgs(options.intent)) : this.method('placeBet')(...common);
    return this.build(method, {
      config: this.config,
      bet: this.betAddress(bettor, options.seq ?? this.nextSeq(bettor)),
      bettorState: bettor.state,
      bettor: bettor.key.publicKey,
      bettorToken: bettor.token,
      vault: this.vault,
      relayer: this.relayer.publicKey,
      tokenProgram: TOKEN_PROGRAM_ID,
      systemProgram: SystemProgram.programId,
      priceRules: PRICE_RULES,
      instructions: INSTRUCTIONS_SYSVAR,
      ...options.accounts,
    });
  }

  /**
   * The bettor's signed intent for the bet `args` at its next bet number, valid for 5 minutes of
   * chain time (docs/decisions.md#bet-intents); `bend` changes a field or the key that signs.
   */
  signedIntent(bettor: Bettor, args: { side: number; amount: bigint }, bend: IntentBend = {}): SignedIntent {
    const { signer = bettor.key, ...fields } = bend;
    const terms: IntentFields = {
      program: PROGRAM_ID,
      config: this.config,
      bettor: bettor.key.publicKey,
      side: args.side === 1 ? 'DOWN' : 'UP',
      amount: args.amount,
      betNumber: this.nextSeq(bettor),
      validUntil: this.now() + INTENT_VALID_FOR,
      ...fields,
    };
    const message = intentMessage(terms);
    const signature = signBytes(signer, message);
    return { ix: ed25519IntentIx({ bettor: signer.publicKey, signature, message }), message, signature, validUntil: terms.validUntil };
  }

  /**
   * place_bet_delegated with the bettor's signed intent: [the intent's Ed25519 instruction, the
   * placement]. `intentAt` is the intent instruction's index in the transaction (default 0: put a
   * tick's Ed25519 instruction first and pass 1); `intent` sends one signed before (a replay).
   */
  async delegatedIxs(
    bettor: Bettor,
    args: { side: number; amount: bigint; entryPrice: bigint },
    options: { seq?: bigint; accounts?: Accounts; tick?: EntryTick; bend?: IntentBend; intentAt?: number; intent?: SignedIntent } = {},
  ): Promise<TransactionInstruction[]> {
    const intent = options.intent ?? this.signedIntent(bettor, args, options.bend);
    const place = await this.placeBetIx(bettor, args, {
      delegated: true,
      seq: options.seq,
      accounts: options.accounts,
      tick: options.tick,
      intent: { instruction: options.intentAt ?? 0, signature: 0, validUntil: intent.validUntil },
    });
    return [intent.ix, place];
  }

  /** close_bet of `bet` paying `bettor` (accounts overridable; `ticks` with signed prices on). */
  closeBetIx(bet: PublicKey, bettor: Bettor, exitPrice: bigint, accounts: Accounts = {}, ticks?: ExitTicks): Promise<TransactionInstruction> {
    return this.build(this.method('closeBet')(toBn(exitPrice), ticks?.instruction ?? 0, ticks?.first ?? 0, ticks?.next ?? 0), {
      config: this.config,
      bet,
      bettorState: bettor.state,
      bettorToken: bettor.token,
      vault: this.vault,
      relayer: this.relayer.publicKey,
      tokenProgram: TOKEN_PROGRAM_ID,
      priceRules: PRICE_RULES,
      instructions: INSTRUCTIONS_SYSVAR,
      ...accounts,
    });
  }

  /** set_price_rules by the admin (creates the account on first use; accounts overridable). */
  setPriceRulesIx(requireSigned: boolean, maxEntryAgeMs = 30_000n, accounts: Accounts = {}): Promise<TransactionInstruction> {
    return this.build(this.method('setPriceRules')(requireSigned ? 1 : 0, toBn(maxEntryAgeMs)), {
      config: this.config,
      admin: this.admin.publicKey,
      priceRules: PRICE_RULES,
      systemProgram: SystemProgram.programId,
      ...accounts,
    });
  }

  /** add_price_signer by the admin (accounts overridable). */
  addPriceSignerIx(signer: PublicKey, expiresAt: bigint, accounts: Accounts = {}): Promise<TransactionInstruction> {
    return this.build(this.method('addPriceSigner')(signer, toBn(expiresAt)), {
      config: this.config,
      admin: this.admin.publicKey,
      priceRules: PRICE_RULES,
      ...accounts,
    });
  }

  /** remove_price_signer by the admin (accounts overridable). */
  removePriceSignerIx(signer: PublicKey, accounts: Accounts = {}): Promise<TransactionInstruction> {
    return this.build(this.method('removePriceSigner')(signer), { config: this.config, admin: this.admin.publicKey, priceRules: PRICE_RULES, ...accounts });
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
