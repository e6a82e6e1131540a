/**
 * The Node version the project declares is the truth (`npm ci` prints no EBADENGINE warning on
 * it): every package in the lock file that names the Node it needs admits the oldest Node the
 * project's `engines` admits, and the Node running the tests is one of them.
 */
import { readFileSync } from 'node:fs';
import semver from 'semver';
import { expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, { engines?: { node?: string } | string[] }> };

it('every locked package admits the oldest Node the project declares', () => {
  const oldest = semver.minVersion(pkg.engines.node);
  expect(oldest).not.toBeNull();
  const refusing = Object.entries(lock.packages)
    .map(([name, p]) => [name, Array.isArray(p.engines) ? undefined : p.engines?.node] as const)
    .filter(([, range]) => range !== undefined && !semver.satisfies(oldest!, range))
    .map(([name, range]) => `${name} needs node ${range}`);
  expect(refusing).toEqual([]);
});

it('the Node running the tests is one the project declares', () => {
  expect(semver.satisfies(process.versions.node, pkg.engines.node)).toBe(true);
});
