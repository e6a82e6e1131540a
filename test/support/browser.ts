/**
 * A headless Chromium for the page tests (the system's, see bin/chromium.ts). Without one the
 * suite fails saying what to install; it is never skipped.
 */
import type { Page } from 'playwright-core';
import { launchChromium } from '../../bin/chromium.ts';

/** Launches headless Chromium. */
export const launchBrowser = launchChromium;

/**
 * Collects the page's uncaught errors, console errors and refused requests (`<status> <method> <path>`),
 * to assert that none happened but those a test expects.
 */
export function pageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    // a refused request is reported below with its URL; the console line does not name it
    if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) errors.push(`console: ${msg.text()}`);
  });
  page.on('response', (res) => {
    if (res.status() >= 400) errors.push(`${res.status()} ${res.request().method()} ${new URL(res.url()).pathname}`);
  });
  return errors;
}
