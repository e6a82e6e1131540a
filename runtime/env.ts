/**
 * Boot-time configuration: every variable is validated once with valibot, and a bad value
 * stops the process with an error that names the variable (docs/operations.md#processes). Each
 * field may carry a one-line description; `envHelp` prints them with their defaults for
 * `--help`.
 *
 * @example
 *   const fields = { GATEWAY_PORT: describe('HTTP port of the gateway', port(8080)) };
 *   exitOnHelp('npm run gateway', 'the betting gateway', fields);
 *   const cfg = readEnv(fields);
 */
import * as v from 'valibot';
import { FaultProfileText } from '../adapters/chain/local/faults/profile.ts';
import { ClusterNodesText } from '../adapters/store/redis/cluster.ts';
import { ConfigError } from '../kernel/errors.ts';
import { LOG_LEVELS } from '../kernel/log.ts';

export type Field<T> = v.GenericSchema<string | undefined, T>;
/** A set of variables and how each is read. */
export type EnvFields = Record<string, Field<unknown>>;

/** A TCP port, defaulting to `fallback`. */
export const port = (fallback: number): Field<number> =>
  v.pipe(
    v.optional(v.string(), String(fallback)),
    v.transform(Number),
    v.number(),
    v.integer('must be an integer port'),
    v.minValue(0, 'must be >= 0'),
    v.maxValue(65535, 'must be <= 65535'),
  );

/** A non-negative integer, defaulting to `fallback`. */
export const integer = (fallback: number, min = 0): Field<number> =>
  v.pipe(
    v.optional(v.string(), String(fallback)),
    v.regex(/^\d+$/, 'must be a non-negative integer'),
    v.transform(Number),
    v.minValue(min, `must be >= ${min}`),
  );

/** An unsigned integer that may exceed 2^53 (token amounts), defaulting to `fallback`. */
export const bigUint = (fallback: bigint): Field<bigint> =>
  v.pipe(
    v.optional(v.string(), String(fallback)),
    v.regex(/^\d+$/, 'must be a non-negative integer'),
    v.transform((s: string) => BigInt(s)),
  );

/** One of a fixed set of words, defaulting to the first. */
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T, fallback: T[number] = values[0]): Field<T[number]> =>
  v.pipe(v.optional(v.string(), fallback), v.picklist(values, `must be one of ${values.join('|')}`));

/** One of a fixed set of words, or absent (the caller decides the default). */
export const optionalOneOf = <const T extends readonly [string, ...string[]]>(values: T): Field<T[number] | undefined> =>
  v.optional(v.picklist(values, `must be one of ${values.join('|')}`));

/** A string that may be absent. */
export const optionalText = (): Field<string | undefined> => v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty')));

/** A string with a default. */
export const text = (fallback: string): Field<string> => v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty')), fallback);

/** Whether `s` parses as a URL with one of `schemes` (e.g. `http:`) and a host. */
function isUrlOf(s: string, schemes: readonly string[]): boolean {
  try {
    const u = new URL(s);
    return schemes.includes(u.protocol) && u.hostname !== '';
  } catch {
    return false;
  }
}

/** A URL with one of `schemes` (`['http:', 'https:']`); absent when `fallback` is undefined. */
export function url(schemes: readonly string[], example: string): Field<string | undefined>;
export function url(schemes: readonly string[], example: string, fallback: string): Field<string>;
export function url(schemes: readonly string[], example: string, fallback?: string): Field<string | undefined> {
  const check = v.pipe(
    v.string(),
    v.check((s: string) => isUrlOf(s, schemes), `must be a URL such as ${example}`),
  );
  return fallback === undefined ? v.optional(check) : v.optional(check, fallback);
}

/** A comma-separated list of URLs with one of `schemes` (several endpoints of one service); absent when unset. */
export function urlList(schemes: readonly string[], example: string): Field<string | undefined> {
  return v.optional(
    v.pipe(
      v.string(),
      v.check((s: string) => s.split(',').every((part) => isUrlOf(part.trim(), schemes)), `must be a URL such as ${example}, or several separated by commas`),
    ),
  );
}

/** Whether `s` is one NATS server: `nats://host:port` (or tls/ws/wss), or `host:port`. */
function isNatsServer(s: string): boolean {
  return /^[^\s:/,]+:\d+$/.test(s) || isUrlOf(s, ['nats:', 'tls:', 'ws:', 'wss:']);
}

/** The first entry of a comma-separated NATS server list that is not a server, or null when every entry is one. */
export function badNatsServer(list: string): string | null {
  return list.split(',').find((part) => !isNatsServer(part.trim())) ?? null;
}

/** A NATS server list, as one string: one server or several separated by commas (the servers of one cluster). */
export const NatsServerList = v.pipe(
  v.string(),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const bad = badNatsServer(dataset.value);
    if (bad !== null)
      addIssue({
        message: `must be a NATS URL such as nats://127.0.0.1:4222, or several of one cluster separated by commas (nats://a:4222,nats://b:4222); ${JSON.stringify(bad.trim())} is not one`,
      });
  }),
);

/** A NATS server list: `nats://host:port` (or tls/ws/wss), `host:port`, comma-separated (docs/operations.md#nats-cluster). */
export function natsUrl(): Field<string | undefined>;
export function natsUrl(fallback: string): Field<string>;
export function natsUrl(fallback?: string): Field<string | undefined> {
  return fallback === undefined ? v.optional(NatsServerList) : v.optional(NatsServerList, fallback);
}

/** `REDIS_CLUSTER_NODES`: seed nodes of a Redis Cluster, instead of REDIS_URL (docs/operations.md#redis-cluster). */
export const redisClusterNodes = (): Field<string | undefined> =>
  describe('Redis Cluster instead of one server: host:port of some of its nodes, separated by commas (keys carry hash tags)', ClusterNodesText);

/** The variables every process reads. */
export const commonEnv = {
  LOG_LEVEL: describe('log level of the JSON log lines on stdout', oneOf(LOG_LEVELS, 'info')),
};

/** The price signer's key, for the processes that sign ticks (docs/decisions.md#signed-prices). */
export const priceSignerEnv = {
  PRICE_SIGNER_KEY: describe(
    "the price signer's Ed25519 key, a Solana keypair file's JSON array of 64 bytes (unset: DATA_DIR/price-signer.json, created on first start)",
    optionalText(),
  ),
};

/** Whether a fresh local chain starts with signed prices on (`npm start`, `npm run chain`). */
export const signedPricesEnv = {
  SIGNED_PRICES: describe(
    'on: a fresh local chain starts with signed prices on, trusting the price signer of PRICE_SIGNER_KEY or DATA_DIR (docs/decisions.md#signed-prices); off: the relayer attests prices; auto: on where the same process signs the ticks (npm start without NATS_URL), else off',
    oneOf(['auto', 'on', 'off'] as const, 'auto'),
  ),
};

/** The variables of every process that may run the local chain (`npm run chain`, `npm start`, an embedded chain). */
export const chainFaultsEnv = {
  CHAIN_FAULTS: describe(
    'fault profile of the local chain: off, cluster, or name=value,... of drop, land-delay-slots, status-lag-ms, burst-429, pubsub-cut-ms, rollback, seed (docs/operations.md#a-fault-profile)',
    FaultProfileText,
  ),
};

/** Attaches a one-line description to a field (shown by `--help`). */
export function describe<T>(help: string, field: Field<T>): Field<T> {
  return v.pipe(field, v.description(help));
}

/** Validates `source` (default `process.env`) against the given fields; throws ConfigError naming the first bad variable. */
export function readEnv<S extends EnvFields>(fields: S, source: Record<string, string | undefined> = process.env): { [K in keyof S]: v.InferOutput<S[K]> } {
  const out: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(fields)) {
    const raw = source[name];
    const result = v.safeParse(schema, raw === '' ? undefined : raw);
    if (!result.success) throw new ConfigError(name, `${result.issues[0]?.message ?? 'invalid'} (got ${JSON.stringify(raw)})`);
    out[name] = result.output;
  }
  return out as { [K in keyof S]: v.InferOutput<S[K]> };
}

/** The default of a field as text (what it reads when the variable is unset), or `(unset)`. */
function defaultText(schema: Field<unknown>): string {
  const r = v.safeParse(schema, undefined);
  if (!r.success || r.output === undefined) return '(unset)';
  return String(r.output);
}

/** A help text: usage line, purpose, then every variable with its default and description. */
export function envHelp(command: string, purpose: string, fields: EnvFields): string {
  const rows = Object.entries(fields).map(([name, schema]) => [name, defaultText(schema), v.getDescription(schema) ?? ''] as const);
  const nameWidth = Math.max(...rows.map(([n]) => n.length), 8);
  const defaultWidth = Math.max(...rows.map(([, d]) => d.length), 7);
  const lines = rows.map(([n, d, h]) => `  ${n.padEnd(nameWidth)}  ${d.padEnd(defaultWidth)}  ${h}`.trimEnd());
  return [
    `usage: ${command}`,
    '',
    purpose,
    '',
    'Configured by environment variables (unset or empty: the default):',
    '',
    `  ${'variable'.padEnd(nameWidth)}  ${'default'.padEnd(defaultWidth)}  meaning`,
    ...lines,
    '',
  ].join('\n');
}

/** Prints the help text and exits 0 when `argv` asks for it (`--help`, `-h`); exits 2 on an unknown argument. */
export function exitOnHelp(command: string, purpose: string, fields: EnvFields, argv: readonly string[] = process.argv.slice(2)): void {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(envHelp(command, purpose, fields));
    process.exit(0);
  }
  const unknown = argv.find((a) => a.trim() !== '');
  if (unknown !== undefined) {
    process.stderr.write(`${command}: unknown argument ${JSON.stringify(unknown)} (configuration is by environment variables; see --help)\n`);
    process.exit(2);
  }
}
