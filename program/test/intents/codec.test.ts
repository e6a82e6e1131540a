/**
 * The gateway's encoder (adapters/chain/codec) against the real program: a delegated placement it
 * builds with `ed25519IntentIx` and `placeBetIx(..., intent)` lands, with the intent ref and the
 * valid-until where the program reads them (docs/decisions.md#bet-intents); without an intent the
 * encoder refuses to build one, and place_bet keeps its 27 bytes.
 */
import { Keypair } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { placeBetIx } from '../../../adapters/chain/codec/instructions.ts';
import { ed25519IntentIx, intentMessage } from '../../../adapters/chain/codec/intent.ts';
import { signBytes } from '../../../adapters/chain/signing.ts';
import { PROGRAM_ID } from '../../index.ts';
import { BetChain } from '../svm.ts';

const STAKE = 1_000_000_000n;
const PRICE = 15_000_000_000n;

describe("the gateway's placement encoder", () => {
  it('builds a delegated placement of 37 bytes that the program accepts with the intent it names', async () => {
    const chain = new BetChain();
    await chain.setUp();
    const bettor = chain.newBettor();
    chain.approveRelayer(bettor, STAKE);
    const validUntil = chain.now() + 120n;
    const bettorKey = bettor.key.publicKey;
    const message = intentMessage({ program: PROGRAM_ID, config: chain.config, bettor: bettorKey, side: 'DOWN', amount: STAKE, betNumber: 0n, validUntil });
    const signature = signBytes(bettor.key, message);
    const accounts = { bettor: bettorKey, seq: 0n, bettorToken: bettor.token, vault: chain.vault, relayer: chain.relayer.publicKey, delegated: true };
    const place = placeBetIx(accounts, 'DOWN', STAKE, PRICE, undefined, { instruction: 0, signature: 0, validUntil });
    expect(place.data.length).toBe(37);
    expect([place.data[27], place.data[28], place.data.readBigInt64LE(29)]).toEqual([0, 0, validUntil]);
    chain.mustSend([ed25519IntentIx({ bettor: bettorKey, signature, message }), place], [chain.relayer]);
    expect(chain.readBet(chain.betAddress(bettor, 0n))).toMatchObject({ side: 1, amount: STAKE, status: 0 });

    expect(() => placeBetIx(accounts, 'UP', STAKE, PRICE)).toThrow(/signed intent/);
    const signed = placeBetIx({ ...accounts, bettor: Keypair.generate().publicKey, delegated: false }, 'UP', STAKE, PRICE);
    expect(signed.data.length).toBe(27);
  });
});
