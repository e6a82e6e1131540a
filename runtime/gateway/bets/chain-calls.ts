/**
 * Turns chain-adapter failures into gateway refusals: an unreachable chain is a 500, and the
 * program's refusals map to the statuses of docs/gateway-api.md#errors.
 */
import { ChainUnavailable, NotSent, OutcomeUnknown, type ProgramRefusal } from '../../../adapters/chain/port.ts';
import { MESSAGES, refusal, type GatewayRefusal } from '../refusals.ts';

/** SPL Token program error codes that reach us through the stake-transfer CPI. */
const SPL_INSUFFICIENT_FUNDS = 1;
const SPL_OWNER_MISMATCH = 4;

/**
 * Runs a chain call; ChainUnavailable becomes a `chain_unavailable` refusal, OutcomeUnknown an
 * `outcome_unknown` one naming the transaction, NotSent a `busy` one, anything else is rethrown.
 */
export async function onChain<T>(call: () => Promise<T>): Promise<T | GatewayRefusal> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof OutcomeUnknown) return refusal('outcome_unknown', MESSAGES.outcomeUnknown, { tx: err.signature, cause: err });
    if (err instanceof NotSent) return refusal('busy', err.reason === 'busy' ? MESSAGES.notSentInTime : MESSAGES.bettorBusy, { cause: err });
    if (err instanceof ChainUnavailable) return refusal('chain_unavailable', MESSAGES.chainDown, { cause: err });
    throw err;
  }
}

/** Maps a program refusal of place_bet to the gateway's answer; `delegated` says who moved the stake. */
export function placeRefusal(err: ProgramRefusal, delegated: boolean): GatewayRefusal {
  switch (err.errorName) {
    case 'NotInitialized':
      return refusal('not_initialized', MESSAGES.notInitialized);
    case 'Paused':
      return refusal('forbidden', MESSAGES.paused);
    case 'AmountTooSmall':
    case 'AmountTooLarge':
      return refusal('invalid_request', `amountUnits is outside minAmount..maxAmount (${err.message})`);
    case 'OpenBetExists':
      return refusal('open_bet', MESSAGES.openBet);
    case 'VaultCannotCover':
      return refusal('vault_cannot_cover', MESSAGES.vaultCannotCover);
    default:
      break;
  }
  if (err.code === SPL_INSUFFICIENT_FUNDS) {
    return delegated
      ? refusal('not_approved', 'the token account has too few tokens, or the relayer is approved as SPL Token delegate for less than amountUnits')
      : refusal('invalid_request', 'the address holds fewer tokens than amountUnits');
  }
  if (err.code === SPL_OWNER_MISMATCH || delegated) {
    return refusal(
      'not_approved',
      'this address is not in the gateway key store: approve the relayer as SPL Token delegate of its token account (signed with your own wallet) before betting',
    );
  }
  return refusal('invalid_request', `the program refused the bet: ${err.errorName} (${err.code})`);
}
