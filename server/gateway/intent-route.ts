/**
 * `GET /api/bet-intent/{address}?side=&amountUnits=[&validSeconds=]` (docs/gateway-api.md#bet-intents):
 * the text a player's wallet signs to allow one bet on an address whose key the gateway does not
 * hold, for the bettor's next bet number as the chain holds it, with the `validUntil` it names.
 * Profile A only (Profile B bets for its one fixed bettor).
 */
import { keyOfName } from '../../adapters/chain/account-layout.ts';
import type { ChainPort } from '../../adapters/chain/port.ts';
import { HttpError } from '../http/reply.ts';
import { answering } from './answers.ts';
import type { GatewayRouter } from './router.ts';
import { betIntentRoute } from '../openapi/gateway.ts';
import { parseBetBodyA } from './wire.ts';

/** How long an intent holds when the request names no `validSeconds`, and the longest it may name. */
export const INTENT_VALID_SECONDS = { default: 120, max: 3_600 } as const;

/** Registers the intent route on `router`. */
export function registerIntentRoute(router: GatewayRouter, chain: ChainPort): void {
  router.get(betIntentRoute, ({ params, query }) =>
    answering(async () => {
      // the terms of the bet, read as POST /api/bet reads them (same rules, same 400s)
      const bet = parseBetBodyA({ address: params.address, side: query.get('side') ?? undefined, amountUnits: query.get('amountUnits') ?? undefined });
      if (bet.amountUnits >= 2n ** 64n) throw new HttpError(400, { error: 'amountUnits must fit in 64 bits' });
      const validText = query.get('validSeconds') ?? String(INTENT_VALID_SECONDS.default);
      const validSeconds = /^\d{1,5}$/.test(validText) ? Number(validText) : 0;
      if (validSeconds < 1 || validSeconds > INTENT_VALID_SECONDS.max)
        throw new HttpError(400, { error: `validSeconds must be an integer from 1 to ${INTENT_VALID_SECONDS.max}` });
      const bettor = keyOfName(bet.address);
      const state = await chain.readBettorState(bettor);
      const betNumber = state?.betCount ?? 0n;
      const validUntil = BigInt(Math.floor(Date.now() / 1000) + validSeconds);
      const message = chain.intentMessage({ bettor, side: bet.side, amount: bet.amountUnits, betNumber, validUntil });
      return { message: new TextDecoder().decode(message), betNumber: betNumber.toString(), validUntil: Number(validUntil) };
    }),
  );
}
