/**
 * The native API's key routes (docs/exchange-api.md#api-keys), an extension of the spec: an
 * account's API keys for the Binance-shaped surface are created, listed and deleted here.
 */
import type { ApiKeyStore } from '../../adapters/store/api-keys/port.ts';
import { createApiKey, deleteApiKey, listApiKeys } from '../../runtime/binance/api-keys.ts';
import type { ExchangeContext } from '../../runtime/exchange/context.ts';
import { HttpError } from '../http/reply.ts';
import type { Router } from '../http/router.ts';
import { CreateApiKeyBody } from './api-key-wire.ts';
import { answer, validate } from './handle.ts';

import { apiKeysRoute, createApiKeyRoute, deleteApiKeyRoute } from '../openapi/exchange-binance.ts';
/** Mounts POST/GET `/api/v1/accounts/{id}/api-keys` and DELETE `/api/v1/accounts/{id}/api-keys/{apiKey}`. */
export function mountApiKeyRoutes(router: Router, ctx: ExchangeContext, keys: ApiKeyStore): void {
  router.add(
    createApiKeyRoute,
    async ({ params, body }) => {
      const b = validate(CreateApiKeyBody, body ?? {});
      const label = b.label === undefined ? {} : { label: b.label };
      if (b.type === 'ED25519') {
        if (b.publicKey === undefined) throw new HttpError(400, { error: 'VALIDATION_ERROR', message: 'publicKey: an ED25519 key needs the public key (PEM)' });
        return answer(await createApiKey(ctx, keys, params.id ?? '', { type: 'ED25519', publicKey: b.publicKey, ...label }), 201);
      }
      if (b.publicKey !== undefined) throw new HttpError(400, { error: 'VALIDATION_ERROR', message: 'publicKey: an HMAC_SHA256 key takes no public key' });
      return answer(await createApiKey(ctx, keys, params.id ?? '', { type: 'HMAC_SHA256', ...label }), 201);
    },
    { body: {} },
  );
  router.add(apiKeysRoute, async ({ params }) => answer(await listApiKeys(ctx, keys, params.id ?? '')));
  router.add(deleteApiKeyRoute, async ({ params }) => answer(await deleteApiKey(ctx, keys, params.id ?? '', params.apiKey ?? ''), 204));
}
