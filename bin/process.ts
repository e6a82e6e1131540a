/**
 * What every entry point does around its service: `--help` (each variable with its default), a
 * one-line message and exit code 1 for what a user must fix (a bad variable, a port in use, a data
 * dir held by another process) instead of a stack trace, and a graceful stop on SIGTERM/SIGINT
 * that ends with a "stopped" line (forced after `graceMs`).
 *
 * @example
 *   await runService({ name: 'gateway', command: 'npm run gateway', purpose: '...', env: gatewayEnv }, async () => startGateway(readGatewayConfig()));
 */
import { PortInUse } from '../kernel/errors.ts';
import { DataDirLocked } from '../adapters/store/file/data-dir-lock.ts';
import { OldDataDirLayout } from '../adapters/chain/local/data-dir.ts';
import { RoleMismatch } from './gateway-chain.ts';
import { commonEnv, exitOnHelp, readEnv, type EnvFields } from '../runtime/env.ts';
import { log, setLogLevel } from '../kernel/log.ts';
import { ConfigError } from '../kernel/errors.ts';

/** What a running service offers its process. */
export interface Stoppable {
  stop(): Promise<void>;
}

/** How the process presents itself. */
export interface ServiceInfo {
  /** the service's name in log lines */
  name: string;
  /** how a user starts it (usage line of --help) */
  command: string;
  purpose: string;
  env: EnvFields;
  /** force the exit after this long stopping [10 s] */
  graceMs?: number;
}

/** The one line a user needs for a failure they can fix, or null for anything else. */
export function userFacingError(err: unknown): string | null {
  if (err instanceof ConfigError) return `bad configuration: ${err.message}`;
  if (err instanceof PortInUse || err instanceof DataDirLocked || err instanceof OldDataDirLayout || err instanceof RoleMismatch) return err.message;
  return null;
}

/** Prints help when asked, starts the service, and stops it on SIGTERM/SIGINT. */
export async function runService(info: ServiceInfo, start: () => Promise<Stoppable>): Promise<void> {
  exitOnHelp(info.command, info.purpose, info.env);
  let service: Stoppable;
  try {
    // the level first: every component logger made while starting takes it
    setLogLevel(readEnv(commonEnv).LOG_LEVEL);
    service = await start();
  } catch (err) {
    const line = userFacingError(err);
    if (line) {
      log.fatal({ service: info.name }, line);
      process.stderr.write(`${info.name}: ${line}\n`);
    } else log.fatal({ err, service: info.name }, `${info.name} failed to start`);
    process.exit(1);
  }
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal, service: info.name }, `${info.name} stopping`);
    const force = setTimeout(() => {
      log.error({ service: info.name }, `${info.name} did not stop within ${info.graceMs ?? 10_000} ms; exiting`);
      process.exit(1);
    }, info.graceMs ?? 10_000);
    force.unref();
    service.stop().then(
      () => {
        log.info({ service: info.name }, `${info.name} stopped`);
        process.exit(0);
      },
      (err: unknown) => {
        log.error({ err, service: info.name }, `${info.name} stop failed`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
