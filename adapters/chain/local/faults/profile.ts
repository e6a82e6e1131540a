/**
 * The local chain's fault profile (docs/operations.md#a-fault-profile): which of a busy public
 * cluster's habits the chain imitates, and how strongly. Off unless asked for. Read from
 * `CHAIN_FAULTS`, a comma list of `name=value` and the preset `cluster` (later items override
 * earlier ones), or given to `startLocalChain` as text or as an object; a bad value is a
 * ConfigError naming `CHAIN_FAULTS` before anything starts.
 *
 * @example
 *   parseFaultProfile('cluster,seed=7');              // the preset, reproducible
 *   parseFaultProfile('drop=0.3,burst-429=300/1000');  // two faults, the others off
 *   parseFaultProfile('off');                          // null: no faults
 */
import * as v from 'valibot';
import { ConfigError } from '../../../../kernel/errors.ts';

/** the variable the profile is read from, named in every error */
export const FAULTS_VARIABLE = 'CHAIN_FAULTS';

const share = (what: string) =>
  v.pipe(v.number(), v.minValue(0, `${what} must be a share between 0 and 1`), v.maxValue(1, `${what} must be a share between 0 and 1`));
const whole = (what: string, min: number, max: number, why = '') =>
  v.pipe(
    v.number(),
    v.integer(`${what} must be a whole number`),
    v.minValue(min, `${what} must be at least ${min}${why}`),
    v.maxValue(max, `${what} must be at most ${max}${why}`),
  );

const Burst = v.pipe(
  v.object({ burstMs: whole('burst-429 burst', 1, 3_600_000), everyMs: whole('burst-429 window', 2, 3_600_000) }),
  v.check((b) => b.burstMs < b.everyMs, 'burst-429 burst must be shorter than its window (burstMs/everyMs)'),
);

/** Every knob, with its default (off). */
const Profile = v.strictObject({
  /** share of the sends that would pass that are answered and never executed */
  drop: v.optional(share('drop'), 0),
  /** slots between accepting a transaction and executing it */
  landDelaySlots: v.optional(whole('land-delay-slots', 0, 149, ' (a blockhash lasts 150 slots)'), 0),
  /** how long after landing a status is shown */
  statusLagMs: v.optional(whole('status-lag-ms', 0, 600_000), 0),
  /** HTTP 429 to every JSON-RPC POST during the first burstMs of every everyMs */
  burst429: v.optional(v.nullable(Burst), null),
  /** every PubSub socket is cut this often (0: never) */
  pubsubCutMs: v.optional(
    v.pipe(
      whole('pubsub-cut-ms', 0, 86_400_000),
      v.check((ms) => ms === 0 || ms >= 50, 'pubsub-cut-ms must be 0 (off) or at least 50'),
    ),
    0,
  ),
  /** every PubSub socket goes silent this often (0: never): it stays open and nothing more is sent on it */
  pubsubSilentMs: v.optional(
    v.pipe(
      whole('pubsub-silent-ms', 0, 86_400_000),
      v.check((ms) => ms === 0 || ms >= 50, 'pubsub-silent-ms must be 0 (off) or at least 50'),
    ),
    0,
  ),
  /** share of slots whose `processed` subscribers first see a transaction that never lands */
  rollback: v.optional(share('rollback'), 0),
  /** seed of the fault draws (absent: a random one, logged at start) */
  seed: v.optional(whole('seed', 0, 0xffff_ffff)),
});

/** A parsed profile: every knob, off where not set. */
export type FaultProfile = v.InferOutput<typeof Profile>;
/** What a caller may set (the rest stays off). */
export type FaultSettings = v.InferInput<typeof Profile>;

/** The `cluster` preset: a busy public RPC node (docs/operations.md#a-fault-profile). */
export const CLUSTER_PRESET = {
  drop: 0.3,
  landDelaySlots: 2,
  statusLagMs: 1_500,
  burst429: { burstMs: 2_000, everyMs: 15_000 },
  pubsubCutMs: 20_000,
  rollback: 0.1,
} as const satisfies FaultSettings;

/** Knob names as written in `CHAIN_FAULTS`. */
const NAMES = {
  drop: 'drop',
  'land-delay-slots': 'landDelaySlots',
  'status-lag-ms': 'statusLagMs',
  'burst-429': 'burst429',
  'pubsub-cut-ms': 'pubsubCutMs',
  'pubsub-silent-ms': 'pubsubSilentMs',
  rollback: 'rollback',
  seed: 'seed',
} as const satisfies Record<string, keyof FaultProfile>;

const isName = (name: string): name is keyof typeof NAMES => Object.hasOwn(NAMES, name);

/** What is wrong with a profile (its message names the knob; the edges add the variable). */
class ProfileIssue extends Error {}
const fail = (message: string): never => {
  throw new ProfileIssue(message);
};

/** The value of one `name=value` item, as a number or a burst; a malformed one throws. */
function itemValue(name: keyof typeof NAMES, text: string): number | { burstMs: number; everyMs: number } {
  if (name === 'burst-429') {
    const m = /^(\d+)\/(\d+)$/.exec(text);
    return m ? { burstMs: Number(m[1]), everyMs: Number(m[2]) } : fail(`burst-429 must be burstMs/everyMs, e.g. 2000/15000 (got ${JSON.stringify(text)})`);
  }
  return /^\d+(\.\d+)?$/.test(text) ? Number(text) : fail(`${name} must be a number (got ${JSON.stringify(text)})`);
}

/** The settings written in `text` (the preset expanded, later items overriding earlier ones). */
function settingsOf(text: string): FaultSettings {
  const settings: Record<string, unknown> = {};
  const given = new Set<string>();
  for (const raw of text.split(',')) {
    const item = raw.trim();
    if (item === 'cluster') {
      Object.assign(settings, CLUSTER_PRESET);
      continue;
    }
    const eq = item.indexOf('=');
    const name = eq < 0 ? item : item.slice(0, eq).trim();
    if (eq < 0 || !isName(name)) {
      return fail(`unknown item ${JSON.stringify(item)}: expected off, cluster or name=value with name one of ${Object.keys(NAMES).join(', ')}`);
    }
    if (given.has(name)) fail(`${name} is given twice`);
    given.add(name);
    settings[NAMES[name]] = itemValue(name, item.slice(eq + 1).trim());
  }
  return settings;
}

/** Checks settings; null when they switch nothing on. Throws ProfileIssue. */
function checked(settings: FaultSettings): FaultProfile | null {
  const res = v.safeParse(Profile, settings);
  if (!res.success) {
    const issue = res.issues[0];
    const key = issue?.path?.[0]?.key;
    const known = typeof key === 'string' && Object.values(NAMES).includes(key as keyof FaultProfile);
    return fail(known || !issue ? (issue?.message ?? 'invalid') : `unknown setting ${JSON.stringify(key)}`);
  }
  const p = res.output;
  const on = p.drop > 0 || p.landDelaySlots > 0 || p.statusLagMs > 0 || p.burst429 !== null || p.pubsubCutMs > 0 || p.pubsubSilentMs > 0 || p.rollback > 0;
  return on ? p : null;
}

/** The profile in a `CHAIN_FAULTS` text; null when it is empty, `off`, or sets nothing. Throws ProfileIssue. */
function fromText(text: string | undefined): FaultProfile | null {
  const trimmed = text?.trim() ?? '';
  if (trimmed === '' || trimmed === 'off') return null;
  return checked(settingsOf(trimmed));
}

/** `CHAIN_FAULTS` as an env field (runtime/env.ts): the profile, or null when off; a bad text is an issue naming the knob. */
export const FaultProfileText = v.pipe(
  v.optional(v.string()),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    try {
      return fromText(dataset.value);
    } catch (err) {
      if (!(err instanceof ProfileIssue)) throw err;
      addIssue({ message: err.message });
      return NEVER;
    }
  }),
);

/** Runs `parse`, turning a ProfileIssue into a ConfigError naming `CHAIN_FAULTS`. */
function asConfig<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    throw err instanceof ProfileIssue ? new ConfigError(FAULTS_VARIABLE, err.message) : err;
  }
}

/** Parses a `CHAIN_FAULTS` text; null when it is empty, `off`, or sets nothing. Throws ConfigError. */
export function parseFaultProfile(text: string | undefined): FaultProfile | null {
  return asConfig(() => fromText(text));
}

/** A profile given as text or as settings (LocalChainOptions.faults); null when off. Throws ConfigError. */
export function resolveFaultProfile(given: string | FaultSettings | null | undefined): FaultProfile | null {
  if (given === undefined || given === null) return null;
  return asConfig(() => (typeof given === 'string' ? fromText(given) : checked(given)));
}

/** The profile as `CHAIN_FAULTS` text (logged at start, so a run can be repeated). */
export function faultProfileText(p: FaultProfile): string {
  const items: string[] = [];
  if (p.drop > 0) items.push(`drop=${p.drop}`);
  if (p.landDelaySlots > 0) items.push(`land-delay-slots=${p.landDelaySlots}`);
  if (p.statusLagMs > 0) items.push(`status-lag-ms=${p.statusLagMs}`);
  if (p.burst429) items.push(`burst-429=${p.burst429.burstMs}/${p.burst429.everyMs}`);
  if (p.pubsubCutMs > 0) items.push(`pubsub-cut-ms=${p.pubsubCutMs}`);
  if (p.pubsubSilentMs > 0) items.push(`pubsub-silent-ms=${p.pubsubSilentMs}`);
  if (p.rollback > 0) items.push(`rollback=${p.rollback}`);
  if (p.seed !== undefined) items.push(`seed=${p.seed}`);
  return items.join(',');
}
