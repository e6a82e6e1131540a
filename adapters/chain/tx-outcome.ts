/**
 * Turns a failed transaction (a preflight error or an `err` in its status) into the
 * adapter's typed errors: a custom program error becomes `ProgramRefusal` with the
 * program's code; anything else is the chain refusing it for its own reasons (`ChainRejected`).
 */
import { errorMessage, errorName } from './codec.ts';
import { ChainRejected, ProgramRefusal } from './port.ts';
import { RpcError } from './rpc-client.ts';

/** SPL Token error names a bettor can run into (token program custom codes). */
const TOKEN_ERRORS: Record<number, string> = { 1: 'InsufficientFunds', 4: 'OwnerMismatch', 17: 'AccountFrozen' };

/** The custom error code inside a transaction error, if it has one. */
export function customCode(err: unknown): number | null {
  if (typeof err !== 'object' || err === null || !('InstructionError' in err)) return null;
  const ix = (err as { InstructionError: unknown }).InstructionError;
  if (!Array.isArray(ix)) return null;
  const inner: unknown = ix[1];
  if (typeof inner === 'object' && inner !== null && 'Custom' in inner && typeof (inner as { Custom: unknown }).Custom === 'number') {
    return (inner as { Custom: number }).Custom;
  }
  return null;
}

/** The error to throw for a transaction that failed with `err` (JSON form) and `logs`. */
export function failureOf(err: unknown, logs: string[], what: string): Error {
  const code = customCode(err);
  if (code !== null) {
    if (code >= 6000) return new ProgramRefusal(code, errorName(code), `${what}: ${errorMessage(code)}`, logs);
    const name = TOKEN_ERRORS[code] ?? `Custom${code}`;
    return new ProgramRefusal(code, name, `${what}: token program refused (${name})`, logs);
  }
  return new ChainRejected(`${what} failed on chain: ${JSON.stringify(err)}`);
}

/** Preflight data (`-32002`) as sent by validators: `{ err, logs }`. */
export function preflightOf(e: RpcError): { err: unknown; logs: string[] } | null {
  if (e.code !== -32002 || typeof e.data !== 'object' || e.data === null || !('err' in e.data)) return null;
  const data = e.data as { err: unknown; logs?: unknown };
  const logs = Array.isArray(data.logs) ? data.logs.filter((l): l is string => typeof l === 'string') : [];
  return { err: data.err, logs };
}
