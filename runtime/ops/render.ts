/**
 * How the operator CLI prints: tables for people (cli-table3), JSON for scripts (`--json`).
 */
import Table from 'cli-table3';

/** A table with `head` and one line per row; cells are printed as text (null as `-`). */
export function table(head: readonly string[], rows: ReadonlyArray<ReadonlyArray<unknown>>): string {
  const t = new Table({ head: [...head], style: { head: [], border: [] } });
  for (const row of rows)
    t.push(row.map((cell) => (cell === null || cell === undefined ? '-' : typeof cell === 'object' ? JSON.stringify(cell) : String(cell))));
  return t.toString();
}

/** Pretty JSON of `value`. */
export const json = (value: unknown): string => JSON.stringify(value, null, 2);

/** A key/value table of an object's top-level fields (nested values as JSON). */
export function fields(value: Record<string, unknown>): string {
  return table(
    ['field', 'value'],
    Object.entries(value).map(([k, v]) => [k, v]),
  );
}

/** A short human form of a duration in seconds (`-3s`, `42s`, `5m12s`, `2h04m`). */
export function seconds(s: number): string {
  const sign = s < 0 ? '-' : '';
  const a = Math.abs(s);
  if (a < 60) return `${sign}${a}s`;
  if (a < 3600) return `${sign}${Math.floor(a / 60)}m${String(a % 60).padStart(2, '0')}s`;
  return `${sign}${Math.floor(a / 3600)}h${String(Math.floor((a % 3600) / 60)).padStart(2, '0')}m`;
}
