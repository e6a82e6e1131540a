/**
 * Turns a failed transaction (a preflight error or an `err` in its status) into the
 * adapter's typed errors: a custom program error becomes `ProgramRefusal` with the
 * program's code; anything else is the chain refusing it for its own reasons (`ChainRejected`).
 */
import { errorMessage, errorName } from './codec.ts';
import { ChainRejected, ProgramRefusal } from './port.ts';
import type { RpcError } from './rpc-client.ts';

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

/** Index of the failing instruction of an `InstructionError`, else null. */
export function failingInstruction(err: unknown): number | null {
  if (typeof err !== 'object' || err === null || !('InstructionError' in err)) return null;
  const ix = (err as { InstructionError: unknown }).InstructionError;
  return Array.isArray(ix) && typeof ix[0] === 'number' ? ix[0] : null;
}

/** The error to throw for a transaction that failed with `err` (JSON form) and `logs`. */
export function failureOf(err: unknown, logs: string[], what: string): Error {
  const code = customCode(err);
  const at = failingInstruction(err);
  if (code !== null) {
    if (code >= 6000) return new ProgramRefusal(code, errorName(code), `${what}: ${errorMessage(code)}`, logs, at);
    const name = TOKEN_ERRORS[code] ?? `Custom${code}`;
    return new ProgramRefusal(code, name, `${what}: token program refused (${name})`, logs, at);
  }
  return new ChainRejected(`${what} failed on chain: ${JSON.stringify(err)}`, undefined, err, at);
}

/**
 * Whether a transaction error says an account of it may not receive lamports: the address is a
 * program, a sysvar or another reserved account (`ReadonlyLamportChange`, `ExecutableLamportChange`).
 */
export function refusesLamports(err: unknown): boolean {
  if (typeof err !== 'object' || err === null || !('InstructionError' in err)) return false;
  const ix = (err as { InstructionError: unknown }).InstructionError;
  return Array.isArray(ix) && (ix[1] === 'ReadonlyLamportChange' || ix[1] === 'ExecutableLamportChange');
}

/** Preflight data (`-32002`) as sent by validators: `{ err, logs }`. */
export function preflightOf(e: RpcError): { err: unknown; logs: string[] } | null {
  if (e.code !== -32002 || typeof e.data !== 'object' || e.data === null || !('err' in e.data)) return null;
  const data = e.data as { err: unknown; logs?: unknown };
  const logs = Array.isArray(data.logs) ? data.logs.filter((l): l is string => typeof l === 'string') : [];
  return { err: data.err, logs };
}
