/**
 * A process's log as data: the gateway and the chain log JSON lines (pino) on stdout, which
 * `Managed.output()` keeps across restarts; each line is parsed, its ISO `time` turned into unix
 * ms. Lines that are not JSON (a stack trace on stderr) are skipped.
 *
 * @example
 *   const failed = logLines(node.process.output()).filter((l) => l.msg.startsWith('reclaim of settled bets failed'));
 */

/** One JSON log line. */
export interface LogLine {
  /** unix ms */
  time: number;
  msg: string;
  [field: string]: unknown;
}

/** The JSON lines of `output`, in order. */
export function logLines(output: string): LogLine[] {
  const lines: LogLine[] = [];
  for (const text of output.split('\n')) {
    if (!text.startsWith('{')) continue;
    try {
      const parsed = JSON.parse(text) as Record<string, unknown>;
      if (typeof parsed.msg !== 'string') continue;
      lines.push({ ...parsed, msg: parsed.msg, time: typeof parsed.time === 'string' ? Date.parse(parsed.time) : Number(parsed.time) });
    } catch {
      /* a partial line or another format: not a log line */
    }
  }
  return lines;
}
