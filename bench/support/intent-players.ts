/**
 * Players whose keys the gateway does not hold, for the intent row of `gateway-bets`
 * (docs/gateway-api.md#bet-intents): each is funded by the faucet, approves the relayer as SPL
 * Token delegate with its own key (a transaction sent straight to the chain), and signs the intent
 * text of each bet itself, as a wallet would. The signing is the player's cost, not the gateway's.
 *
 * @example
 *   const players = await intentPlayers(client, chain.directUrl, chain.dataDir, 1000);
 *   await client.call('POST', '/api/bet', players[0].bet('UP', 100_000_000n));
 */
import { createApproveInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Connection, Keypair, PublicKey, Transaction } from '@solana/web3.js';
import { getBase58Decoder } from '@solana/kit';
import { CONFIG } from '../../adapters/chain/codec/addresses.ts';
import { intentMessage } from '../../adapters/chain/codec/intent.ts';
import { loadRoleKey, readChainInfo } from '../../adapters/chain/local/data-dir.ts';
import { signBytes } from '../../adapters/chain/signing.ts';
import type { Side } from '../../kernel/domain.ts';
import { PROGRAM_ID } from '../../program/index.ts';
import type { JsonClient } from '../../test/support/json-client.ts';
import { pool } from './measure.ts';

const base58 = getBase58Decoder();

/** A player with its own key, betting with a signed intent. */
export interface IntentPlayer {
  address: string;
  /** the body of its next `POST /api/bet` (the intent for its next bet number, valid for 5 minutes) */
  bet(side: Side, amount: bigint): Record<string, unknown>;
}

/** `count` players funded and approved (the relayer may spend 100 stakes of 100000000), 32 at a time. */
export async function intentPlayers(client: JsonClient, chainUrl: string, dataDir: string, count: number): Promise<IntentPlayer[]> {
  const mint = new PublicKey(readChainInfo(dataDir)?.mint ?? '');
  const relayer = loadRoleKey(dataDir, 'relayer')?.publicKey;
  if (!relayer) throw new Error('no relayer key in the data dir');
  const conn = new Connection(chainUrl, 'confirmed');
  const players: IntentPlayer[] = [];
  await pool(
    Array.from({ length: count }, () => Keypair.generate()),
    32,
    async (key) => {
      const f = await client.call('GET', `/api/faucet/${key.publicKey.toBase58()}`);
      if (f.status !== 200) throw new Error(`faucet refused: ${JSON.stringify(f)}`);
      const { blockhash, lastValidBlockHeight } = await conn.getLatestBlockhash();
      const approve = new Transaction({ feePayer: key.publicKey, blockhash, lastValidBlockHeight }).add(
        createApproveInstruction(getAssociatedTokenAddressSync(mint, key.publicKey), relayer, key.publicKey, 100n * 100_000_000n),
      );
      approve.sign(key);
      await conn.confirmTransaction({ signature: await conn.sendRawTransaction(approve.serialize()), blockhash, lastValidBlockHeight }, 'confirmed');
      players.push(player(key));
    },
  );
  return players;
}

function player(key: Keypair): IntentPlayer {
  let betNumber = 0n;
  return {
    address: key.publicKey.toBase58(),
    bet(side, amount) {
      const validUntil = BigInt(Math.floor(Date.now() / 1000) + 300);
      const message = intentMessage({ program: PROGRAM_ID, config: CONFIG, bettor: key.publicKey, side, amount, betNumber, validUntil });
      betNumber++;
      const signature = base58.decode(signBytes(key, message));
      return { address: key.publicKey.toBase58(), side, amountUnits: amount.toString(), intent: { signature, validUntil: Number(validUntil) } };
    },
  };
}
