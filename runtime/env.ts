/**
 * Boot-time configuration: every variable is validated once with valibot, and a bad value
 * stops the process with an error that names the variable (design: "Run contract").
 *
 * @example
 *   const cfg = readEnv({ GATEWAY_PORT: port(8080) });
 */
import * as v from 'valibot';

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

type Field<T> = v.GenericSchema<string | undefined, T>;

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
  v.pipe(v.optional(v.string(), String(fallback)), v.regex(/^\d+$/, 'must be a non-negative integer'), v.transform((s: string) => BigInt(s)));

/** One of a fixed set of words, defaulting to the first. */
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T, fallback: T[number] = values[0]): Field<T[number]> =>
  v.pipe(v.optional(v.string(), fallback), v.picklist(values, `must be one of ${values.join('|')}`));

/** A string that may be absent. */
export const optionalText = (): Field<string | undefined> => v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty')));

/** A string with a default. */
export const text = (fallback: string): Field<string> => v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty')), fallback);

/** Validates `source` (default `process.env`) against the given fields; throws ConfigError naming the first bad variable. */
export function readEnv<S extends Record<string, Field<unknown>>>(
  fields: S,
  source: Record<string, string | undefined> = process.env,
): { [K in keyof S]: v.InferOutput<S[K]> } {
  const out: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(fields)) {
    const raw = source[name];
    const result = v.safeParse(schema, raw === '' ? undefined : raw);
    if (!result.success) throw new ConfigError(name, `${result.issues[0]?.message ?? 'invalid'} (got ${JSON.stringify(raw)})`);
    out[name] = result.output;
  }
  return out as { [K in keyof S]: v.InferOutput<S[K]> };
}
