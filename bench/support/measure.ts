/**
 * What every benchmark measures with: CPU time of a process (from /proc), percentiles, a bounded
 * pool of concurrent tasks, and the report line that puts a figure beside the baseline measured
 * in the same run (the machine is shared and noisy: the ratio is what compares across runs).
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** CPU time (user + system) a process has used so far, in ms (Linux /proc; 10 ms resolution). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU time the whole machine has spent idle so far, in ms (Linux /proc/stat; 10 ms resolution, summed over cores). */
export function machineIdleMs(): number {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]?.trim().split(/\s+/) ?? [];
  return Number(fields[4]) * 10;
}

/** The p-th percentile (0..100) of `xs`. */
export function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** Runs `fn` over `items` with at most `width` in flight; resolves with the elapsed seconds. */
export async function pool<T>(items: readonly T[], width: number, fn: (item: T, index: number) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i] as T, i);
      }
    }),
  );
  return (performance.now() - started) / 1000;
}

export { sleep };

/** Waits until `check()` holds (polling), or throws after `timeoutMs`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

/** One line of a benchmark's report. */
export interface Row {
  measure: string;
  value: number;
  unit: string;
  /** the same-run baseline this figure is compared with */
  baseline?: { name: string; value: number };
  /** what the figure should reach, in words */
  goal?: string;
  /** more figures of the same run, already formatted */
  detail?: string;
}

// a count reads as one (0 bets, not 0.00 bets)
const fmt = (n: number) => (Number.isInteger(n) ? String(n) : Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 10 ? n.toFixed(1) : n.toFixed(2));

/** Prints rows as `measure: value unit | baseline name value | ratio | goal | detail`. */
export function report(title: string, rows: Row[]): void {
  console.log(`\n${title}`);
  for (const r of rows) {
    const parts = [`${r.measure}: ${fmt(r.value)} ${r.unit}`];
    if (r.baseline) {
      // a count whose baseline is 0 (nothing lost in the clean run) has no ratio
      const ratio = r.baseline.value === 0 ? 'n/a' : `${(r.value / r.baseline.value).toFixed(3)}x`;
      parts.push(`baseline ${r.baseline.name} ${fmt(r.baseline.value)} ${r.unit}`, `ratio ${ratio}`);
    }
    if (r.goal) parts.push(`goal ${r.goal}`);
    if (r.detail) parts.push(r.detail);
    console.log(`  ${parts.join(' | ')}`);
  }
}
