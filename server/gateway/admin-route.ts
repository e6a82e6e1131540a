/**
 * `POST /api/admin/pause` `{paused}` (docs/gateway-api.md#admin, `GW_ADMIN_TOKEN`): the admin key
 * calls set_paused. Registered only when a token is configured (else the path is 404); a missing or
 * wrong `Authorization: Bearer <token>` is 401.
 */
import { timingSafeEqual } from 'node:crypto';
import type { ChainPort } from '../../adapters/chain/port.ts';
import type { Logger } from '../../kernel/log.ts';
import { HttpError } from '../http/reply.ts';
import { answering } from './answers.ts';
import type { GatewayRouter } from './router.ts';
import { adminPauseRoute } from '../openapi/gateway.ts';

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `paused` as a boolean: true/false or 1/0. */
function parsePaused(body: unknown): boolean {
  const raw = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).paused : undefined;
  if (raw === true || raw === 1) return true;
  if (raw === false || raw === 0) return false;
  throw new HttpError(400, { error: 'body must be {"paused": true|false}' });
}

/** Registers the admin route when `token` is set. */
export function registerAdminRoute(router: GatewayRouter, chain: ChainPort, token: string | undefined, log: Logger): void {
  if (!token) return;
  router.post(adminPauseRoute, async ({ headers, body }) => {
    const auth = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? '');
    if (!auth?.[1] || !sameToken(auth[1].trim(), token)) throw new HttpError(401, { error: 'admin token required: Authorization: Bearer <GW_ADMIN_TOKEN>' });
    const paused = parsePaused(body);
    return answering(async () => {
      if (!(await chain.readConfig())) throw new HttpError(409, { error: 'the contract is not initialised' });
      const tx = await chain.setPaused(paused);
      log.info({ paused, tx }, paused ? 'bet intake paused by the admin' : 'bet intake resumed by the admin');
      return { paused: paused ? 1 : 0, tx };
    });
  });
}
