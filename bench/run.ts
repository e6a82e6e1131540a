/**
 * `npm run bench`: runs every benchmark file in bench/ (or the ones named on the command
 * line, e.g. `npm run bench -- chain`) one after another, each in its own process.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.endsWith('.test.ts') && !f.endsWith('.d.ts'))
  .filter((f) => wanted.length === 0 || wanted.includes(f.replace(/\.ts$/, '')))
  .sort();

let failed = 0;
for (const file of files) {
  console.log(`\n=== bench/${file}`);
  const res = spawnSync(process.execPath, ['--import', 'tsx', join(here, file)], { stdio: 'inherit', env: process.env });
  if (res.status !== 0) failed++;
}
process.exit(failed === 0 ? 0 : 1);
