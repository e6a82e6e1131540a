/**
 * What the operator CLI reads, validated once at the edge (valibot): where the stores are
 * (`REDIS_URL`, `REDIS_SENTINELS` or `REDIS_CLUSTER_NODES`, else the files in `DATA_DIR`), the chain's JSON-RPC, the key prefixes the
 * services use, and the identifiers commands take.
 */
import * as v from 'valibot';
import { ClusterNodesText } from '../../adapters/store/redis/cluster.ts';
import { MasterName, SentinelList } from '../../adapters/store/redis/target.ts';
import { NatsServerList } from '../env.ts';
import { OpsError } from './errors.ts';

/** Default JSON-RPC url of the local chain. */
export const DEFAULT_RPC_URL = 'http://127.0.0.1:8899';

const Url = (protocols: readonly string[]) =>
  v.pipe(
    v.string(),
    v.check(
      (s) => {
        try {
          return protocols.includes(new URL(s).protocol);
        } catch {
          return false;
        }
      },
      `must be a ${protocols.join(' or ')} URL`,
    ),
  );

/** Global options of every command. */
export const OpsOptions = v.object({
  redisUrl: v.optional(Url(['redis:', 'rediss:'])),
  redisSentinels: SentinelList,
  redisMasterName: MasterName,
  redisClusterNodes: ClusterNodesText,
  dataDir: v.pipe(v.string(), v.nonEmpty('must not be empty')),
  rpcUrl: Url(['http:', 'https:']),
  natsUrl: v.optional(NatsServerList),
  eventStream: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'must be NATS subject tokens joined by dots')),
  /** unset: the gateway's own default, `gw:` (`{gw}:` on a cluster) */
  gatewayPrefix: v.optional(v.pipe(v.string(), v.maxLength(200))),
  exchangePrefix: v.pipe(v.string(), v.nonEmpty('must not be empty'), v.maxLength(200)),
  json: v.optional(v.boolean(), false),
});
export type OpsOptions = v.InferOutput<typeof OpsOptions>;

/** A bet series id or bet id: a decimal integer. */
export const BetId = v.pipe(v.string(), v.regex(/^\d{1,20}$/, 'a bet id is a decimal integer'));
/** An exchange account or order id (UUIDs; anything printable is looked up). */
export const RecordId = v.pipe(v.string(), v.regex(/^[\w-]{1,100}$/, 'an id is letters, digits, - and _'));
/** An event seq: a non-negative integer. */
export const Seq = v.pipe(v.string(), v.regex(/^\d{1,15}$/, 'a seq is a non-negative integer'), v.transform(Number));
/** Seconds, for --stuck-after. */
export const Seconds = v.pipe(v.string(), v.regex(/^\d{1,9}$/, 'must be a whole number of seconds'), v.transform(Number));

/** Parses `value` with `schema`, or throws an OpsError naming `what`. */
export function parseInput<S extends v.GenericSchema>(schema: S, value: unknown, what: string): v.InferOutput<S> {
  const out = v.safeParse(schema, value);
  if (!out.success) {
    const issue = out.issues[0];
    const path = issue?.path?.map((p) => String(p.key)).join('.');
    throw new OpsError(`${what}${path ? ` ${path}` : ''}: ${issue?.message ?? 'invalid'}`);
  }
  return out.output;
}
