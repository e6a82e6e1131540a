/**
 * The settlement effects with the bet history told what they did: the signature of each close,
 * of each Profile B replacement, and which bets are refunded for want of a price (evidence that
 * the bet events do not carry).
 */
import type { BetEffects } from './bet-effects.ts';
import type { BetRecorder } from './bet-recorder.ts';

/** Wraps `effects`; results pass through unchanged. */
export function recordingEffects(effects: BetEffects, recorder: Pick<BetRecorder, 'closedBy' | 'replacedBy' | 'refunding'>): BetEffects {
  return {
    async priceExit(req, signal) {
      const out = await effects.priceExit(req, signal);
      if (out.kind === 'refund_at_entry') recorder.refunding(req.betId.toString());
      return out;
    },
    async closeOnChain(req, signal) {
      const out = await effects.closeOnChain(req, signal);
      if (req.refund) recorder.refunding(req.betId.toString());
      if (out.kind === 'closed') recorder.closedBy(req.betId.toString(), out.signature);
      return out;
    },
    async closeAndReplace(req, signal) {
      const out = await effects.closeAndReplace(req, signal);
      if (out.kind === 'replaced' && out.signature !== '') recorder.replacedBy(req.betId.toString(), out.next.id.toString(), out.signature);
      return out;
    },
  };
}
