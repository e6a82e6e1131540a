/**
 * A Solana Action for a bet (docs/gateway-api.md#bet-with-your-wallet), Profile A:
 * - `GET /api/actions/bet`: what the action is (title, description, icon, an UP and a DOWN action
 *   with an amount in tokens), `disabled` with the reason while no bet can be taken;
 * - `POST /api/actions/bet?side=UP|DOWN&amount=<tokens>` with `{account}`: a placement transaction
 *   the relayer has signed, for the account's wallet to sign (its stake, its fee) and send;
 * - `GET /actions.json`: the site's rules (every `/api/actions/**` path is an action);
 * - `GET /api/actions/icon.svg`: the icon.
 * Every answer carries the Actions CORS and version headers; errors are `{message}` (what a wallet
 * shows) with the gateway's `{error}` beside it. `OPTIONS` is the router's preflight, which allows
 * the Actions request headers.
 */
import type { ActionGetResponse, ActionPostResponse, ActionsJson } from '@solana/actions-spec';
import type * as v from 'valibot';
import { publicKeyOf } from '../../adapters/chain/account-layout.ts';
import type { ChainPort } from '../../adapters/chain/port.ts';
import { formatFixed, parseFixed } from '../../kernel/fixed-point.ts';
import { isRefusal } from '../../kernel/refusal.ts';
import { walletBet, type WalletBetDeps } from '../../runtime/gateway/bets/wallet-bet.ts';
import { MESSAGES } from '../../runtime/gateway/refusals.ts';
import { TOKEN_DECIMALS } from '../../runtime/gateway/views/units.ts';
import { HttpError } from '../http/reply.ts';
import { answering, refusalError } from './answers.ts';
import { respond, TextResponse, type GatewayRouter } from './router.ts';
import { actionGetRoute, actionIconRoute, actionPostRoute, actionsJsonRoute } from '../openapi/gateway.ts';
import { isRecord, parseSideA } from './wire.ts';
import type { ActionGetSchema, ActionsJsonSchema, ActionTransactionSchema } from './wire-responses.ts';

/** The answers as documented (the OpenAPI schemas) and as the Actions specification types them: each body satisfies both. */
type ActionGet = v.InferOutput<typeof ActionGetSchema>;
type ActionTransaction = v.InferOutput<typeof ActionTransactionSchema>;
type ActionRules = v.InferOutput<typeof ActionsJsonSchema>;

/** The Actions specification version these routes follow. */
export const ACTION_VERSION = '2.4';

/** The headers of every Actions answer but the blockchain id (docs/gateway-api.md#bet-with-your-wallet). */
const ACTION_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['Access-Control-Expose-Headers', 'X-Action-Version, X-Blockchain-Ids'],
  ['X-Action-Version', ACTION_VERSION],
];

const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="256" height="256">
<rect width="64" height="64" rx="12" fill="#14161f"/>
<path d="M20 28 L32 14 L44 28 Z" fill="#2fbf71"/>
<path d="M20 36 L32 50 L44 36 Z" fill="#e5484d"/>
</svg>
`;

/** Registers the Action routes on `router`. */
export function registerActionRoutes(router: GatewayRouter, chain: ChainPort, deps: WalletBetDeps): void {
  let blockchainId: string | null = null;
  /** `X-Blockchain-Ids`: the chain's CAIP-2 id, `solana:` and the first 32 characters of its genesis hash */
  const headers = async (): Promise<ReadonlyArray<readonly [string, string]>> => {
    blockchainId ??= await chain
      .genesisHash()
      .then((hash) => `solana:${hash.slice(0, 32)}`)
      .catch(() => null);
    return blockchainId ? [...ACTION_HEADERS, ['X-Blockchain-Ids', blockchainId]] : ACTION_HEADERS;
  };
  /** Runs an Actions handler: its errors become `{message, error}` with the Actions headers. */
  const action = async <T>(body: (headers: ReadonlyArray<readonly [string, string]>) => Promise<T>): Promise<T> => {
    const h = await headers();
    try {
      return await answering(() => body(h));
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      const message = typeof err.body.error === 'string' ? err.body.error : err.message;
      throw new HttpError(err.status, { message, ...err.body }, { cause: err.cause, headers: [...err.headers, ...h] });
    }
  };

  router.get(
    actionGetRoute,
    (req) =>
      action(async (h) => {
        const origin = `${req.headers['x-forwarded-proto'] === 'https' ? 'https' : 'http'}://${req.headers.host ?? '127.0.0.1'}`;
        const config = await chain.readConfig();
        const tokens = (units: bigint) => formatFixed(units, TOKEN_DECIMALS, { trim: true });
        const limits = config ? `${tokens(config.minAmount)} to ${tokens(config.maxAmount)} tokens` : 'tokens';
        const linked = (side: 'UP' | 'DOWN'): ActionGet['links']['actions'][number] => ({
          type: 'transaction',
          label: side,
          href: `/api/actions/bet?side=${side}&amount={amount}`,
          parameters: [
            {
              type: 'number',
              name: 'amount',
              label: `Stake (${limits})`,
              required: true,
              ...(config ? { min: Number(tokens(config.minAmount)), max: Number(tokens(config.maxAmount)) } : {}),
            },
          ],
        });
        const seconds = config?.expirySeconds.toString() ?? '15';
        const payout = config ? formatFixed(config.multiplierBps, 4, { trim: true }) : '';
        const reason = !config ? MESSAGES.notInitialized : config.paused ? MESSAGES.paused : (await deps.entryPrice()) === null ? MESSAGES.noPrice : null;
        const body = {
          type: 'action',
          icon: `${origin}/api/actions/icon.svg`,
          title: `SOL UP or DOWN in ${seconds} s`,
          description: `Bet whether the SOL price is higher (UP) or lower (DOWN) ${seconds} s after your bet lands. A win pays ${payout ? `${payout} x ` : ''}the stake; a tie gives it back. Your wallet signs the stake; the price is checked on chain.`,
          label: 'Bet',
          links: { actions: [linked('UP'), linked('DOWN')] },
          ...(reason ? { disabled: true as const, error: { message: reason } } : {}),
        } satisfies ActionGet satisfies ActionGetResponse;
        return respond(200, body, h);
      }),
    ['host', 'x-forwarded-proto'],
  );

  router.post(actionPostRoute, (req) =>
    action(async (h) => {
      const side = parseSideA(req.query.get('side'));
      const amountUnits = parseFixed(req.query.get('amount') ?? '', TOKEN_DECIMALS);
      if (amountUnits === undefined || amountUnits === 0n)
        throw new HttpError(400, { error: `amount must be a positive number of tokens with at most ${TOKEN_DECIMALS} decimals` });
      const account = isRecord(req.body) && typeof req.body.account === 'string' ? publicKeyOf(req.body.account) : null;
      if (!account) throw new HttpError(400, { error: 'account must be the base58 public key of the wallet that signs' });
      const bet = await walletBet(deps, { bettor: account, side, amountUnits });
      if (isRefusal(bet)) throw refusalError(bet);
      const body = { type: 'transaction', transaction: bet.transaction, message: bet.message } satisfies ActionTransaction satisfies ActionPostResponse;
      return respond(200, body, h);
    }),
  );

  router.get(actionsJsonRoute, () =>
    action(async (h) => {
      const rules = { rules: [{ pathPattern: '/api/actions/**', apiPath: '/api/actions/**' }] } satisfies ActionRules satisfies ActionsJson;
      return respond(200, rules, h);
    }),
  );

  router.get(actionIconRoute, () => new TextResponse(ICON, 'image/svg+xml'));
}
