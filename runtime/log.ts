/**
 * One pino logger per process; `LOG_LEVEL` picks the level, `child()` names the component.
 * A bad `LOG_LEVEL` never crashes here: the level falls back to `info` and the entry point's
 * configuration check stops the process naming the variable (`commonEnv` in env.ts).
 */
import { pino, type Logger } from 'pino';

export type { Logger };

const LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);
const wanted = process.env.LOG_LEVEL;

export const log: Logger = pino({
  level: wanted !== undefined && LEVELS.has(wanted) ? wanted : 'info',
  base: { pid: process.pid },
  timestamp: pino.stdTimeFunctions.isoTime,
});

/**
 * The logger of one component. Components do not nest: a component logger made from another
 * keeps the parent's other bindings but carries one `component` field (pino children would
 * repeat the key).
 */
export function componentLog(parent: Logger, component: string, bindings: Record<string, unknown> = {}): Logger {
  const inherited = parent.bindings() as Record<string, unknown>;
  const stream = (parent as unknown as Record<symbol, pino.DestinationStream>)[pino.symbols.streamSym];
  return pino({ level: parent.level, base: { pid: process.pid, ...inherited, ...bindings, component }, timestamp: pino.stdTimeFunctions.isoTime }, stream);
}
