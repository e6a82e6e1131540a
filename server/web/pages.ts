/**
 * The live web page of each service: `web/<service>/` plus `web/shared/`, and the libraries served
 * from node_modules (lightweight-charts' standalone ES module build; for the gateway the wallet
 * standard's app side), so the page needs no bundler and the project vendors nothing. Assets live under `/ui/`, the page at `/`.
 *
 * @example
 *   mountSite(app, servicePage('gateway', { '/ui/config.json': () => ({ profile: 'A' }) }), ASSET_PREFIX);
 */
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSite, type Site, type SiteFile } from './static.ts';

/** Where a page's assets are served. */
export const ASSET_PREFIX = '/ui';

/** The project's `web/` folder (pages as written: plain ES modules and CSS, no build step). */
const WEB_ROOT = fileURLToPath(new URL('../../web/', import.meta.url));

/** lightweight-charts' self-contained ES module build (no imports of its own). */
export function chartLibraryFile(): string {
  const pkg = createRequire(import.meta.url).resolve('lightweight-charts/package.json');
  return join(dirname(pkg), 'dist', 'lightweight-charts.standalone.production.mjs');
}

/** The wallet standard's app side (`getWallets`, @wallet-standard/app): its ES module file has no imports of its own. */
export function walletStandardFile(): string {
  const main = createRequire(import.meta.url).resolve('@wallet-standard/app'); // lib/cjs/index.js
  return join(dirname(main), '..', 'esm', 'wallets.js');
}

/** Every file of `dir` (not recursive) served as `/ui/<prefix><name>`. */
function assetsOf(dir: string, urlPrefix: string): SiteFile[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isFile() && !d.name.startsWith('.') && d.name !== 'index.html')
    .map((d) => ({ url: `${ASSET_PREFIX}/${urlPrefix}${d.name}`, file: join(dir, d.name) }));
}

/** The page of `service` with its assets, and JSON documents made per request (e.g. `/ui/config.json`). */
export function servicePage(service: 'gateway' | 'exchange', json: Record<string, () => unknown> = {}): Site {
  const own = join(WEB_ROOT, service);
  return loadSite(
    [
      { url: '/', file: join(own, 'index.html') },
      ...assetsOf(own, ''),
      ...assetsOf(join(WEB_ROOT, 'shared'), 'shared/'),
      // the package version is pinned; a day of caching spares a reload 180 KB
      { url: `${ASSET_PREFIX}/lightweight-charts.js`, file: chartLibraryFile(), cacheControl: 'public, max-age=86400' },
      // the gateway page finds the player's browser wallets through the wallet standard
      ...(service === 'gateway' ? [{ url: `${ASSET_PREFIX}/wallet-standard.js`, file: walletStandardFile(), cacheControl: 'public, max-age=86400' }] : []),
    ],
    json,
  );
}
