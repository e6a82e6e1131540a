import { txErrorText, type TxErrorJson } from './tx-errors.ts';

/** A JSON-RPC error the local chain answers with (standard codes, and Solana's -320xx server codes). */
export class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcFailure';
  }
}

/** JSON-RPC 2.0 codes, plus the ones Solana validators use for transaction rejections. */
export const RPC_CODES = {
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  /** preflight simulation failed (data carries err + logs) */
  sendFailed: -32002,
  signatureVerification: -32003,
  /** the node's slot is below the request's minContextSlot (data carries contextSlot) */
  minContextSlotNotReached: -32016,
} as const;

/** Refuses a read asked for at a slot the node has not reached, as a validator does. */
export function assertMinContextSlot(nodeSlot: number, minContextSlot: number | undefined): void {
  if (minContextSlot !== undefined && nodeSlot < minContextSlot) {
    throw new RpcFailure(RPC_CODES.minContextSlotNotReached, 'Minimum context slot has not been reached', { contextSlot: nodeSlot });
  }
}

/** Outcome of running a transaction without committing it. */
export interface Simulation {
  err: TxErrorJson | null;
  logs: string[];
  unitsConsumed: number;
}

/** The -32002 error a validator answers when preflight simulation fails (web3.js reads err and logs from data). */
export function preflightFailure(sim: Simulation): RpcFailure {
  return new RpcFailure(RPC_CODES.sendFailed, `Transaction simulation failed: ${txErrorText(sim.err ?? 'SanitizeFailure')}`, {
    accounts: null,
    err: sim.err,
    innerInstructions: null,
    logs: sim.logs,
    replacementBlockhash: null,
    returnData: null,
    unitsConsumed: sim.unitsConsumed,
  });
}
