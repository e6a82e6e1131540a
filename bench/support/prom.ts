/**
 * Reads a service's Prometheus text (docs/operations.md#metrics) into one number per metric
 * name, every labelled series of it summed, so a benchmark can take the difference of two
 * scrapes around what it measures. Histogram buckets are left out; their `_sum` and `_count` stay.
 */
export type Scrape = Map<string, number>;

/** Parses Prometheus text exposition (`name{labels} value` lines). */
export function parseMetrics(text: string): Scrape {
  const out: Scrape = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!m || m[1]?.endsWith('_bucket')) continue;
    const value = Number(m[3]);
    if (Number.isFinite(value)) out.set(m[1] as string, (out.get(m[1] as string) ?? 0) + value);
  }
  return out;
}

/** GET `base` + `path` (the gateway's /metrics), parsed; a few scrapes per run, so plain fetch. */
export async function scrape(base: string, path = '/metrics'): Promise<Scrape> {
  const res = await fetch(`${base}${path}`);
  if (!res.ok) throw new Error(`GET ${path}: ${res.status}`);
  return parseMetrics(await res.text());
}

/** `name` in `after` minus `name` in `before` (0 when a scrape lacks it). */
export const delta = (before: Scrape, after: Scrape, name: string): number => (after.get(name) ?? 0) - (before.get(name) ?? 0);
