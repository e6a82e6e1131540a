/**
 * Response bodies of the gateway's routes (docs/gateway-api.md), declared once as valibot schemas:
 * the OpenAPI document is generated from them and the tests check every answer against it.
 */
import * as v from 'valibot';
import { STATUS_NAMES } from '../../kernel/domain.ts';
import { base58Address, BetStatusSchema, SideSchema } from '../../kernel/schemas.ts';

const Int = v.pipe(v.number(), v.safeInteger());
const UIntText = v.pipe(v.string(), v.regex(/^\d+$/));
const Human = v.pipe(v.string(), v.regex(/^-?\d+\.\d{6}$/));
const Address = base58Address();

/** Every error answer: `{error}`, sometimes with more (409 open bet: `openBetId`; 503 not ready: `missing`). */
export const ErrorBodySchema = v.object({ error: v.string() });

/** `POST /wallet`. */
export const WalletSchema = v.strictObject({ address: Address });

/** Balance object (docs/gateway-api.md#balance). */
export const BalanceSchema = v.strictObject({ sol: v.number(), solLamports: Int, tokenUnits: UIntText, tokenHuman: Human });

/** `GET /faucet/{address}`: the grant. */
export const FaucetGrantSchema = v.strictObject({ address: Address, ...BalanceSchema.entries });

/** Contract-state object (`GET /state`, docs/gateway-api.md#state). */
export const ContractStateSchema = v.strictObject({
  counter: UIntText,
  nextBetId: UIntText,
  minAmount: UIntText,
  maxAmount: UIntText,
  minAmountHuman: Human,
  maxAmountHuman: Human,
  multiplierBps: UIntText,
  expirySeconds: UIntText,
  paused: v.picklist([0, 1]),
  admin: Address,
  relayer: Address,
  vaultBalance: UIntText,
  vaultBalanceHuman: Human,
});

/** Bet object (Profile B `openBet`/`lastBet`, docs/gateway-api.md#state). */
export const BetObjectSchema = v.strictObject({
  id: UIntText,
  status: v.picklist(['open', 'closed']),
  statusCode: BetStatusSchema,
  result: v.nullable(v.picklist(STATUS_NAMES.slice(1) as ['payout_done', 'house_won', 'refunded'])),
  side: SideSchema,
  amountUnits: UIntText,
  amountHuman: Human,
  entryPrice: Int,
  exitPrice: Int,
  betTime: Int,
  expireTime: Int,
  retryAfterSeconds: v.nullable(Int),
});

/** Profile B `GET /state`: the contract state plus the fixed bettor's fields. */
export const ContractStateBSchema = v.strictObject({
  ...ContractStateSchema.entries,
  bettor: Address,
  betPercent: Int,
  betAmountUnits: UIntText,
  betAmountHuman: Human,
  canBet: v.boolean(),
  canBetReasonCode: v.nullable(v.string()),
  canBetReason: v.nullable(v.string()),
  balance: BalanceSchema,
  openBet: v.nullable(BetObjectSchema),
  lastBet: v.nullable(BetObjectSchema),
});

/** Profile A `POST /bet`. */
export const PlacedBetASchema = v.strictObject({ tx: v.string(), id: UIntText, bettor: Address, entryPrice: Int });

/** `GET /api/bet-intent/{address}` (docs/gateway-api.md#bet-intents): the text to sign, the bet number it names, until when it holds (unix s). */
export const BetIntentSchema = v.strictObject({ message: v.string(), betNumber: UIntText, validUntil: Int });

/**
 * The Solana Action of a bet (docs/gateway-api.md#bet-with-your-wallet), in the shapes of the Actions
 * specification (the routes check them against its types): what `GET /api/actions/bet` describes,
 * the transaction `POST` gives, an error (`message` for the wallet, `error` as every gateway error),
 * and `/actions.json`.
 */
export const ActionGetSchema = v.strictObject({
  type: v.literal('action'),
  icon: v.pipe(v.string(), v.url()),
  title: v.string(),
  description: v.string(),
  label: v.string(),
  disabled: v.optional(v.literal(true)),
  error: v.optional(v.strictObject({ message: v.string() })),
  links: v.strictObject({
    actions: v.array(
      v.strictObject({
        type: v.literal('transaction'),
        label: v.string(),
        href: v.string(),
        parameters: v.array(
          v.strictObject({
            type: v.literal('number'),
            name: v.string(),
            label: v.string(),
            required: v.boolean(),
            min: v.optional(v.number()),
            max: v.optional(v.number()),
          }),
        ),
      }),
    ),
  }),
});
export const ActionTransactionSchema = v.strictObject({ type: v.literal('transaction'), transaction: v.string(), message: v.string() });
export const ActionErrorSchema = v.looseObject({ message: v.string(), error: v.string() });
export const ActionsJsonSchema = v.strictObject({ rules: v.array(v.strictObject({ pathPattern: v.string(), apiPath: v.string() })) });

/** Profile B `POST /bet`: the decision object (fields after `txSig` only when accepted). */
export const DecisionSchema = v.strictObject({
  accepted: v.boolean(),
  reasonCode: v.nullable(v.string()),
  reason: v.nullable(v.string()),
  retryAfterSeconds: v.nullable(Int),
  betId: v.nullable(UIntText),
  txSig: v.nullable(v.string()),
  amountUnits: v.optional(UIntText),
  amountHuman: v.optional(Human),
  side: v.optional(SideSchema),
  entryPrice: v.optional(Int),
  expireTime: v.optional(Int),
  id: v.optional(UIntText),
  tx: v.optional(v.string()),
  bettor: v.optional(Address),
});

const CheckState = SideSchema;
/** `GET /health`: 200 `{status: 'UP', node, leader}`; 503 DOWN with `error` naming what is unreachable. */
export const HealthSchema = v.object({
  status: CheckState,
  node: v.string(),
  leader: v.boolean(),
  error: v.optional(v.string()),
});
/** `GET /ready` 200. */
export const ReadySchema = v.object({ ready: v.literal(true), node: v.string() });
/** `GET /ready` 503: what is missing. */
export const NotReadySchema = v.object({ error: v.string(), missing: v.array(v.string()) });

/** `POST /admin/pause` (only with GW_ADMIN_TOKEN). */
export const PauseResultSchema = v.strictObject({ paused: v.picklist([0, 1]), tx: v.string() });
