/** A logger that prints nothing, for tests that provoke logged failures on purpose. */
import { pino } from 'pino';

export const quietLog = pino({ level: 'silent' });
