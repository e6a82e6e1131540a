/** Token amounts on the wire (docs/gateway-api.md#units): 6 decimals, base units as integers. */
import { formatFixed } from '../../../kernel/fixed-point.ts';

export const TOKEN_DECIMALS = 6;
export const LAMPORTS_PER_SOL = 1_000_000_000n;

/** Base units -> "123.456789" (always 6 fraction digits; exact, no float). */
export function formatHuman(units: bigint): string {
  return formatFixed(units, TOKEN_DECIMALS);
}

/** Lamports -> SOL as a JSON number (`sol` is a number: docs/gateway-api.md#balance). */
export function lamportsToSol(lamports: bigint): number {
  return Number(lamports) / Number(LAMPORTS_PER_SOL);
}

/** The balance object of docs/gateway-api.md#balance. */
export interface BalanceView {
  sol: number;
  solLamports: number;
  tokenUnits: string;
  tokenHuman: string;
}

export function balanceView(lamports: bigint, tokenUnits: bigint): BalanceView {
  return {
    sol: lamportsToSol(lamports),
    solLamports: Number(lamports),
    tokenUnits: tokenUnits.toString(),
    tokenHuman: formatHuman(tokenUnits),
  };
}
