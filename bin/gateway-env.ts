/** Gateway configuration, validated once at boot (docs/operations.md#processes); `--help` prints it. */
import { hostname } from 'node:os';
import * as v from 'valibot';
import { redisConfigOf, redisEnvFields } from './redis-env.ts';
import {
  bigUint,
  chainFaultsEnv,
  commonEnv,
  describe,
  integer,
  natsUrl,
  oneOf,
  optionalText,
  port,
  priceSignerEnv,
  readEnv,
  text,
  url,
  urlList,
} from '../runtime/env.ts';
import { base58Address } from '../kernel/schemas.ts';

const optionalAddress = v.optional(base58Address());

export const gatewayEnv = {
  GATEWAY_PORT: describe('HTTP and WebSocket port', port(8080)),
  HOST: describe('listen address (0.0.0.0 in a container)', text('127.0.0.1')),
  GW_PROFILE: describe('A: the client names bettor and amount; B: one fixed bettor, amount chosen, ties replayed', oneOf(['A', 'B'] as const)),
  SMART_MODE: describe('test: custodial wallets and the faucet exist; prod: they do not', oneOf(['test', 'prod'] as const)),
  SMART_SETTLE_INTERVAL_MS: describe('settlement scan period, ms', integer(2000, 10)),
  SOLANA_RPC_URL: describe(
    'JSON-RPC of the chain; several separated by commas: transactions sent to all, reads failing over (unset: the local chain in-process over DATA_DIR)',
    urlList(['http:', 'https:'], 'http://127.0.0.1:8899'),
  ),
  SOLANA_WS_URL: describe('PubSub of the chain (unset: the first SOLANA_RPC_URL on port + 1, ws:// or wss://)', url(['ws:', 'wss:'], 'ws://127.0.0.1:8900')),
  GW_RESEND_MS: describe('a transaction not confirmed yet is sent again (the same bytes) this often, ms', integer(700, 50)),
  GW_COMPUTE_BUDGET: describe(
    'auto: on for a chain other than the local one; on: a compute-unit limit from simulation and a priority fee on every transaction; off: neither',
    oneOf(['auto', 'on', 'off'] as const),
  ),
  GW_PRIORITY_FEE_MAX: describe('the priority fee paid at most, micro-lamports per compute unit (0: none)', integer(50_000)),
  GW_BET_ANSWER_MS: describe(
    'POST /bet waits this long for the confirmation, then answers 500 {tx, pending: true} while the bet goes on landing, ms',
    integer(5000, 100),
  ),
  GW_MAX_PLACING: describe(
    'placements in flight at most; beyond them POST /bet answers 503 with Retry-After at once, before anything is sent (docs/decisions.md#placements-are-admitted-not-queued)',
    integer(256, 1),
  ),
  NATS_URL: describe(
    'NATS for market.price.solusdt, the shared event stream and (with Redis) the leader lease; several servers of one cluster separated by commas (unset: synthetic prices)',
    natsUrl(),
  ),
  REDIS_URL: describe('Redis for snapshots, events, prices, keys (unset: files in DATA_DIR)', url(['redis:', 'rediss:'], 'redis://127.0.0.1:6379')),
  ...redisEnvFields,
  DATA_DIR: describe('where the local chain and the embedded stores keep their files', text('.data')),
  ...priceSignerEnv,
  GW_NODE_ID: describe('name of this gateway in logs and /health (default: hostname-pid)', text(`${hostname()}-${process.pid}`)),
  GW_LEASE_TTL_MS: describe(
    'with Redis: TTL of the leader lease (in a NATS KV bucket when NATS_URL is set too) (the leader runs the bet actors and the settler), ms',
    integer(5000, 100),
  ),
  GW_FIXED_BETTOR: describe('Profile B: the fixed bettor (unset: one is created and kept in DATA_DIR)', optionalAddress),
  GW_BET_PERCENT: describe('Profile B: stake as a percentage of the token balance', v.pipe(integer(30, 1), v.maxValue(100, 'must be <= 100'))),
  GW_MAX_REPLAYS: describe('Profile B: most tie replays in one chain', integer(10)),
  GW_KEYSTORE_SECRET: describe('encrypts custodial keys at rest (test mode: generated into DATA_DIR when unset)', optionalText()),
  GW_ADMIN_TOKEN: describe('enables POST /api/admin/pause with Authorization: Bearer <token>', optionalText()),
  GW_EVENT_STREAM: describe(
    'with NATS: subject prefix of the event stream the gateways of one deployment share (stream name: the prefix in capitals, dots as _)',
    v.optional(
      v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'must be NATS subject tokens (letters, digits, _ and -) joined by dots')),
      'gw.events',
    ),
  ),
  GW_EVENT_REPLICAS: describe(
    'with NATS: replicas of the event stream and of its KV buckets (relay cursor, leader lease); 3 on a 3-server cluster; a stream found with fewer is raised',
    v.pipe(integer(1, 1), v.maxValue(5, 'must be <= 5 (JetStream keeps at most 5 replicas)')),
  ),
  GW_LISTEN_BACKLOG: describe(
    'connections the kernel may queue before the gateway accepts them (a reconnect herd after a restart); past 512, several listening sockets on the port',
    v.pipe(integer(16_384, 1), v.maxValue(65_536, 'must be <= 65536')),
  ),
  GW_RESUME_RING_EVENTS: describe('newest events held in memory, so a socket resuming inside them reads nothing from the event log', integer(20_000, 100)),
  GW_MAX_RESUMING: describe('sockets replaying at once; a connect with ?since= beyond it is answered 503 with Retry-After', integer(30_000, 1)),
  GW_MAX_SOCKETS: describe(
    'WebSockets held at most; at it the gateway stops listening until some close (unset: the open-file limit less 512)',
    v.optional(v.pipe(v.string(), v.regex(/^\d+$/, 'must be a positive integer'), v.transform(Number), v.minValue(1, 'must be >= 1'))),
  ),
  GW_FANOUT_SHARDS: describe(
    'topics live sockets are spread over, one published per turn of the event loop, so a request waits for one shard of a fan-out at most',
    v.pipe(integer(16, 1), v.maxValue(256, 'must be <= 256')),
  ),
  GW_RECLAIM_BETS: describe("on: settled bets older than a bettor's latest are closed on chain, their rent back to the payer", oneOf(['on', 'off'] as const)),
  GW_HISTORY_DAYS: describe('days a bet stays in the history (GET /api/bets, /api/leaderboard)', integer(7, 1)),
  GW_EXPIRY_SECONDS: describe('init: bet window, seconds', integer(15, 1)),
  GW_MIN_AMOUNT: describe('init: minimum stake, token base units', bigUint(100_000_000n)),
  GW_MAX_AMOUNT: describe('init: maximum stake, token base units', bigUint(10_000_000_000n)),
  GW_MULTIPLIER_BPS: describe('init: payout multiplier, basis points', bigUint(13_000n)),
  GW_REFUND_AFTER_SECONDS: describe('init: after expiry + this, anyone may refund an unsettled stake on chain', integer(300, 1)),
  GW_INIT: describe('on: initialise an uninitialised contract at boot (needs DATA_DIR/upgrade-authority.json)', oneOf(['on', 'off'] as const)),
  ...chainFaultsEnv,
  ...commonEnv,
};

export type GatewayConfig = ReturnType<typeof readGatewayConfig>;

/** The gateway's variables, checked; `redis`: where its Redis is (REDIS_URL or REDIS_SENTINELS), null for none. */
export function readGatewayConfig(source: Record<string, string | undefined> = process.env) {
  const env = readEnv(gatewayEnv, source);
  return { ...env, redis: redisConfigOf(env) };
}
