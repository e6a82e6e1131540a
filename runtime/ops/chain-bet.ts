/**
 * `bet <id>`'s chain view: the bet account (PDA ["bet", bettor, seq]) read over JSON-RPC and
 * decoded with the program's IDL. A chain that does not answer, or an account that is gone,
 * is reported in the answer rather than failing the command: the snapshot is still worth seeing.
 */
import { betAddress, decodeBet } from '../../adapters/chain/codec.ts';
import { fetchAccount } from '../../adapters/chain/account-reads.ts';

import { HttpTransport, RpcClient } from '../../adapters/chain/rpc-client.ts';
import { messageOf } from './errors.ts';
import { STATUS_NAMES } from '../../kernel/domain.ts';

/** The bet account as JSON (u64 fields as decimal strings). */
export interface ChainBetView {
  address: string;
  id: string;
  bettor: string;
  seq: string;
  side: string;
  amountUnits: string;
  entryPrice: string;
  exitPrice: string;
  betTime: string;
  expireTime: string;
  status: number;
  statusName: string;
}

/** What the chain said: the account, or why there is none. */
export type ChainBetRead = { chain: ChainBetView; chainError: null } | { chain: null; chainError: string };

/** Reads the bet account of (`bettor`, `seq`) from the chain at `rpcUrl`. */
export async function readChainBet(rpcUrl: string, bettor: string, seq: string, timeoutMs = 3_000): Promise<ChainBetRead> {
  const transport = new HttpTransport(rpcUrl, timeoutMs, 1);
  try {
    const address = betAddress({ bettor, seq: BigInt(seq) });
    const account = await fetchAccount(new RpcClient(transport), address);
    if (!account) return { chain: null, chainError: `no bet account at ${address.toBase58()} on ${rpcUrl}` };
    const b = decodeBet(account.data);
    return {
      chain: {
        address: address.toBase58(),
        id: b.id.toString(),
        bettor: b.bettor,
        seq: b.seq.toString(),
        side: b.side,
        amountUnits: b.amount.toString(),
        entryPrice: b.entryPrice.toString(),
        exitPrice: b.exitPrice.toString(),
        betTime: b.betTime.toString(),
        expireTime: b.expireTime.toString(),
        status: b.status,
        statusName: STATUS_NAMES[b.status],
      },
      chainError: null,
    };
  } catch (err) {
    return { chain: null, chainError: `chain at ${rpcUrl}: ${messageOf(err)}` };
  } finally {
    transport.close?.();
  }
}
