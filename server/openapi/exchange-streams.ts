/**
 * The exchange's WebSocket endpoints in its OpenAPI document: the native account stream
 * (docs/exchange-api.md#account-stream) with its events under `x-websocket-events`, and Binance's
 * WebSocket API for the user data stream (docs/exchange-api.md#binance-user-data-stream).
 */
import * as v from 'valibot';
import type { GenericSchema } from 'valibot';
import { AccountBalanceEventSchema, AccountCashEventSchema, AccountFillEventSchema, AccountOrderEventSchema } from '../../runtime/exchange/account-events.ts';
import { ErrorView } from '../exchange/wire.ts';
import { json, type OperationSpec } from './document.ts';

const seq = { seq: v.pipe(v.number(), v.safeInteger(), v.minValue(1)) };
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Named schemas of the account stream's messages. */
export function accountStreamSchemas(): Record<string, GenericSchema> {
  return {
    AccountResumeMessage: v.object({ type: v.literal('resume'), accountId: v.string(), recovered: v.boolean(), epoch: v.string(), seq: v.number() }),
    AccountOrderEvent: v.object({ ...AccountOrderEventSchema.entries, ...seq }),
    AccountBalanceEvent: v.object({ ...AccountBalanceEventSchema.entries, ...seq }),
    AccountFillEvent: v.object({ ...AccountFillEventSchema.entries, ...seq }),
    AccountCashEvent: v.object({ ...AccountCashEventSchema.entries, ...seq }),
  };
}

/** The two WebSocket endpoints. */
export function streamOperations(): OperationSpec[] {
  return [
    {
      method: 'get',
      path: '/api/v1/accounts/{id}/ws',
      summary: "WebSocket stream of the account's order, fill, balance and cash events with a per-account seq; `?since=<seq>&epoch=` resumes",
      tags: ['exchange'],
      parameters: [
        { name: 'id', in: 'path', description: 'account id (UUID)', schema: v.string() },
        { name: 'since', in: 'query', description: 'last seq received', schema: v.string() },
        { name: 'epoch', in: 'query', description: 'epoch of the last resume message', schema: v.string() },
      ],
      responses: {
        101: { description: 'upgraded; JSON messages as in x-websocket-events' },
        400: json('VALIDATION_ERROR: a bad since or epoch', ErrorView),
        404: json('ACCOUNT_NOT_FOUND', ErrorView),
        426: json('UPGRADE_REQUIRED: a plain GET', ErrorView),
        503: json('REDIS_UNAVAILABLE: the ledger store does not answer', ErrorView, ['Retry-After']),
      },
      extensions: {
        'x-extension': 'not part of the exchange spec: the account stream',
        'x-websocket-events': {
          resume: { when: 'first, on every connect', schema: ref('AccountResumeMessage') },
          order: { when: 'an engine order was placed, filled, canceled or expired', schema: ref('AccountOrderEvent') },
          balance: { when: "after every change of the account's balances", schema: ref('AccountBalanceEvent') },
          fill: { when: 'a native market order took a book level', schema: ref('AccountFillEvent') },
          cash: { when: 'a deposit, withdrawal or cash set', schema: ref('AccountCashEvent') },
        },
      },
    },
    {
      method: 'get',
      path: '/ws-api/v3',
      summary: "Binance's WebSocket API for the user data stream (userDataStream.subscribe.signature; executionReport, outboundAccountPosition, balanceUpdate)",
      tags: ['binance'],
      responses: {
        101: { description: 'upgraded; requests {id, method, params}, answers {id, status, result | error, rateLimits}' },
        426: json('a plain GET', v.object({ code: v.number(), msg: v.string() })),
      },
      extensions: { 'x-extension': 'not part of the exchange spec: the Binance-shaped surface' },
    },
  ];
}
