/**
 * Refusals of bet intents (docs/decisions.md#bet-intents): one per check of a delegated
 * placement's signed intent, reached with the fewest moves (the attacks behind each are in
 * attacks/intents.test.ts), and the placement data without the intent fields.
 */
import { Keypair, TransactionInstruction } from '@solana/web3.js';
import { it } from 'vitest';
import { ready, PRICE, STAKE, type Refused } from './support.ts';

/** Registers the tests (inside the refusals describe). */
export function intentRefusals(refused: Refused): void {
  it('delegated placements: no intent, signed by another key, for another bet, expired, old 27-byte data', async () => {
    const { chain, bettor } = await ready();
    chain.approveRelayer(bettor, 10n * STAKE);
    const args = { side: 0, amount: STAKE, entryPrice: PRICE };
    const validUntil = chain.now() + 60n;
    const bare = await chain.placeBetIx(bettor, args, { delegated: true, intent: { instruction: 0, signature: 0, validUntil } });
    refused(chain.send([bare], [chain.relayer]), 'IntentMissing');
    refused(chain.send(await chain.delegatedIxs(bettor, args, { bend: { signer: Keypair.generate() } }), [chain.relayer]), 'IntentSignerMismatch');
    refused(chain.send(await chain.delegatedIxs(bettor, args, { bend: { amount: 2n * STAKE } }), [chain.relayer]), 'IntentMismatch');
    refused(chain.send(await chain.delegatedIxs(bettor, args, { bend: { validUntil: chain.now() - 1n } }), [chain.relayer]), 'IntentExpired');
    const [intent, place] = await chain.delegatedIxs(bettor, args);
    const short = new TransactionInstruction({ programId: place!.programId, keys: place!.keys, data: place!.data.subarray(0, 27) });
    refused(chain.send([intent!, short], [chain.relayer]), 'InvalidInstructionData');
  });
}
