/**
 * Compute budget of the gateway's transactions on a real cluster (docs/architecture.md#landing-transactions):
 * a leader schedules a transaction sooner when it asks for few compute units and pays a priority
 * fee. The unit limit of each kind of transaction (what it does, and how many instructions) is
 * simulated once and reused for `refreshMs` (the most units seen, times `margin`); the price per
 * unit is read from `getRecentPrioritizationFees` for the accounts it writes (a high percentile
 * of recent slots), capped by `maxPrice`. Neither is ever on the way of a send: when a read
 * fails, the transaction goes without it (a chain without the method, a 429).
 */
import * as v from 'valibot';
import { ComputeBudgetProgram, type Keypair, type TransactionInstruction } from '@solana/web3.js';
import type { RpcClient } from '../rpc-client.ts';
import { signTransaction } from '../signing.ts';

const Simulation = v.object({ value: v.object({ err: v.unknown(), unitsConsumed: v.optional(v.nullable(v.number())) }) });
const Fees = v.array(v.object({ slot: v.number(), prioritizationFee: v.number() }));

/** The units the compute-budget instructions cost themselves. */
const BUDGET_UNITS = 300;
/** The percentile of recent slots' fees paid. */
const FEE_PERCENTILE = 0.75;

export interface BudgetOptions {
  /** micro-lamports per compute unit at most; 0: no priority fee */
  maxPrice: number;
  /** units asked for = units simulated x margin [1.2] */
  margin?: number;
  /** a simulated limit and a fee read are reused this long [60 s, 10 s] */
  limitTtlMs?: number;
  feeTtlMs?: number;
}

/** What a transaction was given, for the metrics. */
export interface Budgeted {
  instructions: TransactionInstruction[];
  /** micro-lamports per unit paid (0 when none) */
  price: number;
  units: number | null;
}

export class ComputeBudget {
  private readonly limits = new Map<string, { units: number; at: number }>();
  private readonly fees = new Map<string, { price: number; at: number }>();

  constructor(
    private readonly rpc: RpcClient,
    private readonly opts: BudgetOptions,
  ) {}

  /**
   * `instructions` with a unit limit and a price added (each when known), last: the runtime reads
   * them anywhere in the transaction, and the instructions before keep their indexes (the contract
   * names its Ed25519 instruction by index: docs/decisions.md#signed-prices).
   */
  async apply(what: string, instructions: TransactionInstruction[], payer: Keypair, signers: Keypair[], blockhash: string): Promise<Budgeted> {
    const kind = `${what}/${instructions.length}`;
    const [units, price] = await Promise.all([this.units(kind, instructions, payer, signers, blockhash), this.price(kind, instructions)]);
    const prefix: TransactionInstruction[] = [];
    if (units !== null) prefix.push(ComputeBudgetProgram.setComputeUnitLimit({ units }));
    if (price > 0) prefix.push(ComputeBudgetProgram.setComputeUnitPrice({ microLamports: price }));
    return { instructions: [...instructions, ...prefix], price, units };
  }

  private async units(kind: string, instructions: TransactionInstruction[], payer: Keypair, signers: Keypair[], blockhash: string): Promise<number | null> {
    const known = this.limits.get(kind);
    if (known && Date.now() - known.at < (this.opts.limitTtlMs ?? 60_000)) return known.units;
    try {
      const { wire } = signTransaction(instructions, payer, signers, blockhash);
      const sim = await this.rpc.call(
        'simulateTransaction',
        [wire.toString('base64'), { encoding: 'base64', sigVerify: false, replaceRecentBlockhash: true, commitment: 'confirmed' }],
        Simulation,
      );
      const used = sim.value.unitsConsumed;
      // a failing simulation says nothing of what a passing one uses: the previous limit, or none
      if (sim.value.err !== null || !used) return known?.units ?? null;
      const units = Math.min(1_400_000, Math.ceil((used + BUDGET_UNITS) * (this.opts.margin ?? 1.2)));
      this.limits.set(kind, { units: Math.max(units, known?.units ?? 0), at: Date.now() });
      return Math.max(units, known?.units ?? 0);
    } catch {
      return known?.units ?? null;
    }
  }

  private async price(kind: string, instructions: TransactionInstruction[]): Promise<number> {
    if (this.opts.maxPrice <= 0) return 0;
    const known = this.fees.get(kind);
    if (known && Date.now() - known.at < (this.opts.feeTtlMs ?? 10_000)) return known.price;
    const writable = [...new Set(instructions.flatMap((ix) => ix.keys.filter((k) => k.isWritable).map((k) => k.pubkey.toBase58())))].slice(0, 128);
    try {
      const fees = (await this.rpc.call('getRecentPrioritizationFees', [writable], Fees)).map((f) => f.prioritizationFee).sort((a, b) => a - b);
      const at = fees.length === 0 ? 0 : (fees[Math.min(fees.length - 1, Math.floor(fees.length * FEE_PERCENTILE))] ?? 0);
      const price = Math.min(this.opts.maxPrice, Math.max(1, at));
      this.fees.set(kind, { price, at: Date.now() });
      return price;
    } catch {
      return known?.price ?? 0;
    }
  }
}
