/** One pino logger per process; `LOG_LEVEL` picks the level, `child()` names the component. */
import { pino, type Logger } from 'pino';

export type { Logger };

export const log: Logger = pino({
  level: process.env.LOG_LEVEL ?? 'info',
  base: { pid: process.pid },
  timestamp: pino.stdTimeFunctions.isoTime,
});
