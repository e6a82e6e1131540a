/**
 * Bet effects whose every call waits until the test answers it: the model-based test
 * resolves or rejects each pending call with the outcome the model step names, and reads
 * the calls back to check what the runtime asked of the chain.
 */
import type { BetEffects, CloseResult, PriceExit, ReplaceResult } from '../../../runtime/gateway/bets/effects.ts';

export type EffectName = keyof BetEffects;

/** One call the runtime made, with its request as it reached the effect. */
export interface EffectCall {
  effect: EffectName;
  request: Record<string, unknown>;
}

interface Pending {
  effect: EffectName;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

/** Effects that record calls and answer only when told to. */
export class ScriptedEffects {
  readonly calls: EffectCall[] = [];
  private pending: Pending[] = [];

  readonly effects: BetEffects = {
    priceExit: (req) => this.call<PriceExit>('priceExit', req),
    closeOnChain: (req) => this.call<CloseResult>('closeOnChain', req),
    closeAndReplace: (req) => this.call<ReplaceResult>('closeAndReplace', req),
  };

  private call<T>(effect: EffectName, request: object): Promise<T> {
    this.calls.push({ effect, request: { ...request } });
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ effect, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  private take(effect: EffectName): Pending {
    const i = this.pending.findIndex((p) => p.effect === effect);
    const found = this.pending[i];
    if (!found) throw new Error(`no pending ${effect} call (pending: ${this.pending.map((p) => p.effect).join(', ') || 'none'})`);
    this.pending.splice(i, 1);
    return found;
  }

  /** Answers the oldest pending call of `effect`. */
  answer(effect: EffectName, value: PriceExit | CloseResult | ReplaceResult): void {
    this.take(effect).resolve(value);
  }

  /** Fails the oldest pending call of `effect`. */
  fail(effect: EffectName, message: string): void {
    this.take(effect).reject(new Error(message));
  }

  /** Forgets calls left pending by a stopped runtime (a crash abandons them). */
  abandonPending(): void {
    this.pending = [];
  }

  pendingCount(): number {
    return this.pending.length;
  }
}
