/**
 * One pino logger per process; `componentLog` names the component. Its level is `info` until the
 * entry point sets it from its validated configuration (`setLogLevel`): nothing reads the
 * environment on import.
 */
import { pino, type Logger } from 'pino';

export type { Logger };

/** pino's levels. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const log: Logger = pino({
  level: 'info',
  base: { pid: process.pid },
  timestamp: pino.stdTimeFunctions.isoTime,
});

/** Sets the process logger's level; the entry point calls it once its configuration is read, before it makes any component logger. */
export function setLogLevel(level: LogLevel): void {
  log.level = level;
}

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
