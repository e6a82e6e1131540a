import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../kernel/errors.ts';
import { chainFaultsEnv, readEnv } from '../../../../runtime/env.ts';
import { CLUSTER_PRESET, faultProfileText, parseFaultProfile, resolveFaultProfile } from './profile.ts';
import { seededRandom } from './rng.ts';

const OFF = { drop: 0, landDelaySlots: 0, statusLagMs: 0, burst429: null, pubsubCutMs: 0, pubsubSilentMs: 0, rollback: 0 };

/** The message of the ConfigError `fn` throws. */
function configError(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).variable).toBe('CHAIN_FAULTS');
    return (err as Error).message;
  }
  throw new Error('no ConfigError');
}

describe('fault profile', () => {
  it('parses a comma list of name=value, the cluster preset, and later items overriding the preset', () => {
    expect(parseFaultProfile('drop=0.3,status-lag-ms=1500,burst-429=2000/15000,pubsub-cut-ms=20000,land-delay-slots=2,seed=7')).toEqual({
      ...OFF,
      drop: 0.3,
      statusLagMs: 1500,
      burst429: { burstMs: 2000, everyMs: 15000 },
      pubsubCutMs: 20000,
      landDelaySlots: 2,
      seed: 7,
    });
    expect(parseFaultProfile('cluster')).toEqual({ ...OFF, ...CLUSTER_PRESET });
    expect(parseFaultProfile('pubsub-silent-ms=8000')).toEqual({ ...OFF, pubsubSilentMs: 8000 });
    expect(parseFaultProfile(' cluster , drop=0.1 , seed=7 ')).toEqual({ ...OFF, ...CLUSTER_PRESET, drop: 0.1, seed: 7 });
    expect(parseFaultProfile('burst-429=300/1000')).toEqual({ ...OFF, burst429: { burstMs: 300, everyMs: 1000 } });
  });

  it('is off (null) when unset, empty, off, or when nothing it sets is on', () => {
    for (const text of [undefined, '', '  ', 'off', 'drop=0', 'seed=3', 'drop=0,pubsub-cut-ms=0', 'pubsub-silent-ms=0'])
      expect(parseFaultProfile(text)).toBeNull();
    expect(resolveFaultProfile(undefined)).toBeNull();
    expect(resolveFaultProfile(null)).toBeNull();
    expect(resolveFaultProfile({})).toBeNull();
    expect(resolveFaultProfile({ drop: 0.5 })).toEqual({ ...OFF, drop: 0.5 });
  });

  it('refuses a bad profile with a ConfigError naming CHAIN_FAULTS and the knob', () => {
    const cases: Array<[string, RegExp]> = [
      ['drop=1.5', /drop must be a share between 0 and 1/],
      ['drop=-0.1', /drop must be a number/],
      ['drop=lots', /drop must be a number/],
      ['rollback=2', /rollback must be a share/],
      ['land-delay-slots=150', /land-delay-slots must be at most 149 \(a blockhash lasts 150 slots\)/],
      ['land-delay-slots=1.5', /land-delay-slots must be a whole number/],
      ['status-lag-ms=1e3', /status-lag-ms must be a number/],
      ['burst-429=300', /burst-429 must be burstMs\/everyMs/],
      ['burst-429=1000/300', /burst must be shorter than its window/],
      ['burst-429=0/300', /burst-429 burst must be at least 1/],
      ['pubsub-cut-ms=10', /pubsub-cut-ms must be 0 \(off\) or at least 50/],
      ['pubsub-silent-ms=10', /pubsub-silent-ms must be 0 \(off\) or at least 50/],
      ['seed=4294967296', /seed must be at most 4294967295/],
      ['drop=0.1,drop=0.2', /drop is given twice/],
      ['jitter=5', /unknown item "jitter=5".*drop, land-delay-slots/],
      ['clusterr', /unknown item "clusterr"/],
      ['drop', /unknown item "drop"/],
    ];
    for (const [text, message] of cases) {
      const msg = configError(() => parseFaultProfile(text));
      expect(msg).toMatch(/^CHAIN_FAULTS: /);
      expect(msg).toMatch(message);
    }
    expect(configError(() => resolveFaultProfile({ drop: 3 }))).toMatch(/drop must be a share/);
    expect(configError(() => resolveFaultProfile({ jitter: 5 } as object))).toMatch(/unknown setting "jitter"/);
    expect(configError(() => resolveFaultProfile('pubsub-cut-ms=1'))).toMatch(/pubsub-cut-ms/);
  });

  it('is read from the env as CHAIN_FAULTS: null when unset, a ConfigError naming it when bad', () => {
    expect(readEnv(chainFaultsEnv, {}).CHAIN_FAULTS).toBeNull();
    expect(readEnv(chainFaultsEnv, { CHAIN_FAULTS: 'cluster,seed=7' }).CHAIN_FAULTS).toEqual({ ...OFF, ...CLUSTER_PRESET, seed: 7 });
    expect(() => readEnv(chainFaultsEnv, { CHAIN_FAULTS: 'drop=2' })).toThrow(/^CHAIN_FAULTS: drop must be a share between 0 and 1 \(got "drop=2"\)$/);
  });

  it('writes itself back as the text that parses to it', () => {
    const text = 'drop=0.25,land-delay-slots=3,status-lag-ms=200,burst-429=300/1000,pubsub-cut-ms=500,pubsub-silent-ms=700,rollback=0.1,seed=9';
    const profile = parseFaultProfile(text);
    expect(profile && faultProfileText(profile)).toBe(text);
  });
});

describe('seeded random', () => {
  it('repeats its sequence for a seed, differs between seeds, and is uniform enough to count drops by', () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const first = Array.from({ length: 5 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).toEqual(first);
    const c = seededRandom(8);
    expect(Array.from({ length: 5 }, () => c())).not.toEqual(first);
    const r = seededRandom(1);
    const draws = Array.from({ length: 10_000 }, () => r());
    expect(draws.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(draws.filter((x) => x < 0.3).length / draws.length).toBeCloseTo(0.3, 1);
  });
});
