/**
 * The shipped alert rules (deploy/prometheus/alerts.yml, docs/operations.md#alerts) pass
 * `promtool check rules` and their unit tests (`promtool test rules alerts.test.yml`), and every
 * alert has a test. promtool is Debian's `prometheus` package (installed by `.ci/run`): without
 * it this suite fails, saying so.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp-dir.ts';

const DIR = 'deploy/prometheus';
const RULES = join(DIR, 'alerts.yml');
const TESTS = join(DIR, 'alerts.test.yml');

/** Runs promtool (bounded); fails the test with a clear message when it is not installed. */
function promtool(...args: string[]): { code: number | null; out: string } {
  const r = spawnSync('promtool', args, { encoding: 'utf8', timeout: 60_000 });
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT')
    throw new Error("promtool is not installed: install Debian's `prometheus` package (apt-get install prometheus), as .ci/run does");
  if (r.error) throw r.error;
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

const scratch: string[] = [];
afterAll(() => {
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});

/** The rules and their tests copied next to each other, the rules changed by `edit`. */
function editedCopy(edit: (rules: string) => string): string {
  const dir = tempDir('alert-rules-');
  scratch.push(dir);
  const rules = readFileSync(RULES, 'utf8');
  const changed = edit(rules);
  expect(changed).not.toBe(rules);
  writeFileSync(join(dir, 'alerts.yml'), changed);
  copyFileSync(TESTS, join(dir, 'alerts.test.yml'));
  return dir;
}

describe('alert rules', () => {
  it('promtool check rules: valid', () => {
    const r = promtool('check', 'rules', RULES);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/SUCCESS: \d+ rules found/);
  });

  it('promtool test rules: every unit test passes', () => {
    const r = promtool('test', 'rules', TESTS);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('SUCCESS');
  });

  it('every alert has a test that fires it and one that expects nothing, and each has for:, severity, summary and description', () => {
    const rules = readFileSync(RULES, 'utf8');
    const tests = readFileSync(TESTS, 'utf8');
    const alerts = [...rules.matchAll(/^\s*- alert: (\w+)$/gm)].map((m) => m[1] as string);
    expect(alerts.length).toBeGreaterThanOrEqual(15);
    for (const name of alerts) {
      const evals = tests.split(/^\s*- eval_time: /m).filter((e) => e.includes(`alertname: ${name}\n`));
      expect(
        evals.some((e) => /exp_alerts: \[\]/.test(e)),
        `${name}: a case that must not fire`,
      ).toBe(true);
      expect(
        evals.some((e) => /exp_alerts:\n/.test(e)),
        `${name}: a case that fires`,
      ).toBe(true);
    }
    // each rule block, from its `- alert:` to the next
    for (const block of rules.split(/^\s*- alert: /m).slice(1)) {
      expect(block, block.slice(0, 40)).toMatch(/^\s+for: \d+[smh]$/m);
      expect(block).toMatch(/^\s+severity: (warning|critical)$/m);
      expect(block).toMatch(/^\s+summary: /m);
      expect(block).toMatch(/^\s+description: /m);
    }
  });

  it('the unit tests catch a changed threshold and a broken rule', () => {
    const loosened = editedCopy((rules) => rules.replace('gateway_tx_pending > 50', 'gateway_tx_pending > 100'));
    const test = promtool('test', 'rules', join(loosened, 'alerts.test.yml'));
    expect(test.code).not.toBe(0);
    expect(test.out).toContain('GatewayTxPendingHigh');

    const broken = editedCopy((rules) => rules.replace('sum by (job) (gateway_leader) == 0', 'sum by (job) (gateway_leader == 0'));
    expect(promtool('check', 'rules', join(broken, 'alerts.yml')).code).not.toBe(0);
  });
});
