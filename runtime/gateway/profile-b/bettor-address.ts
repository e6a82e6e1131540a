/**
 * Who the Profile B gateway bets for (`GW_FIXED_BETTOR`,
 * docs/gateway-api.md#profile-b-post-apibet). When the variable is set, that address (its key must
 * be in the key store, else every bet is `WALLET_UNKNOWN`). When unset, the gateway creates a
 * custodial wallet on its first boot, remembers its address in `DATA_DIR/fixed-bettor.json` and
 * uses it from then on; the address is logged and shown as `bettor` in `GET /state`, so an operator
 * funds it with `GET /faucet/<bettor>`.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { PublicKey } from '@solana/web3.js';
import type { KeyStore } from '../../../adapters/store/keystore/port.ts';
import type { Logger } from '../../../kernel/log.ts';

const Remembered = v.object({ address: v.string() });

/** The fixed bettor's address. */
export async function resolveFixedBettor(configured: string | undefined, dataDir: string, keys: KeyStore, log: Logger): Promise<PublicKey> {
  if (configured) {
    const known = await keys.has(configured);
    (known ? log.info.bind(log) : log.warn.bind(log))({ bettor: configured, inKeyStore: known }, 'fixed bettor from GW_FIXED_BETTOR');
    return new PublicKey(configured);
  }
  const file = join(dataDir, 'fixed-bettor.json');
  if (existsSync(file)) {
    const { address } = v.parse(Remembered, JSON.parse(readFileSync(file, 'utf8')));
    log.info({ bettor: address, file }, 'fixed bettor remembered from an earlier boot (GW_FIXED_BETTOR unset)');
    return new PublicKey(address);
  }
  const pair = await keys.create();
  const address = pair.publicKey.toBase58();
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, JSON.stringify({ address }), { mode: 0o644 });
  log.warn({ bettor: address, file }, 'GW_FIXED_BETTOR unset: created a custodial fixed bettor; fund it with GET /api/faucet/<bettor>');
  return pair.publicKey;
}
