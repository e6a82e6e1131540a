/**
 * Turning signed prices on under a running gateway (docs/decisions.md#signed-prices): a contract
 * initialised with relayer-attested prices takes bets as before; once its admin sends
 * `set_price_rules` + `add_price_signer` at run time, the gateway follows without a restart: a
 * placement sent without a tick before it noticed is refused by the contract and sent again with
 * one, so every answer is a 200, and every placement carries a verified entry tick (the signer's newest entry seq rises on chain), and the bet placed before
 * the switch is settled by a close that carries the signed pair around its expiry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { readPriceRules } from '../../adapters/chain/price-rules.ts';
import { HttpTransport, RpcClient } from '../../adapters/chain/rpc-client.ts';
import { readPriceSignerKey } from '../../adapters/feed/price-signer.ts';
import { signedPricesOnWire } from '../../bench/support/raw-chain.ts';
import { burstStack, type BurstStack } from '../support/bet-burst.ts';
import { programAccountsNow, rpc } from '../support/chain-bets.ts';
import { JsonClient } from '../support/json-client.ts';

let stack: BurstStack;
let client: JsonClient;

beforeAll(async () => {
  stack = await burstStack('chain+redis', { GW_INIT: 'on', GW_EXPIRY_SECONDS: '3', SMART_SETTLE_INTERVAL_MS: '200' });
  client = new JsonClient(stack.base, 4);
}, 180_000);

afterAll(async () => {
  client?.close();
  await stack?.stop();
});

const bet = (address: string) => client.call('POST', '/api/bet', { address, side: 'UP', amountUnits: '100000000' });

describe('signed prices turned on at run time', () => {
  it('the gateway follows: bets before the switch settle at the signed pair, bets after it open at a verified tick', async () => {
    const chain = new RpcClient(new HttpTransport(stack.chainUrl, 10_000));
    const [early, late] = await stack.fundedWallets(2);
    expect(await readPriceRules(chain)).toBeNull(); // relayer-attested prices

    const before = await bet(early as string);
    expect(before.status, JSON.stringify(before.body)).toBe(200);
    const earlyId = String((before.body as { id: unknown }).id);

    const signer = readPriceSignerKey(stack.dataDir);
    expect(signer, 'the gateway created its feed key in the data dir').not.toBeNull();
    const { value } = await rpc<{ value: { blockhash: string } }>(stack.chainUrl, 'getLatestBlockhash', [{ commitment: 'confirmed' }]);
    await rpc(stack.chainUrl, 'sendTransaction', [signedPricesOnWire(stack.dataDir, signer!.publicKey, value.blockhash), { encoding: 'base64' }]);
    const deadline = Date.now() + 10_000;
    while ((await readPriceRules(chain))?.requireSigned !== true) {
      if (Date.now() > deadline) throw new Error('the admin transaction did not land');
      await sleep(100);
    }

    // the early bet is still open: its close comes under the new rules, where the contract refuses one without the pair
    const open = (await programAccountsNow(stack.chainUrl)).bets.find((b) => String(b.id) === earlyId);
    expect(open?.status, 'the bet placed before the switch is still open when signed prices are on').toBe(0);

    // right after the switch the gateway may still hold "relayer prices": the contract refuses that
    // placement and the gateway sends it again with a tick, so the player never sees the switch
    const after = await bet(late as string);
    expect(after.status, JSON.stringify(after.body)).toBe(200);
    const rules = await readPriceRules(chain);
    expect(rules?.signers[0]?.key).toBe(signer!.publicKey.toBase58());
    expect(rules?.signers[0]?.lastEntrySeq, 'the bet opened at a verified entry tick').toBeGreaterThan(0n);

    // the bet placed before the switch is closed under the new rules: with the signed exit pair
    const closedBy = Date.now() + 30_000;
    for (;;) {
      const { bets } = await programAccountsNow(stack.chainUrl);
      const mine = bets.find((b) => String(b.id) === earlyId);
      if (mine && mine.status !== 0) break;
      if (Date.now() > closedBy)
        throw new Error(
          `bet ${earlyId} not settled within 30 s of the switch: ${JSON.stringify(mine, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`,
        );
      await sleep(250);
    }
    const view = await client.call('GET', `/api/bets/${earlyId}`);
    const signed = (view.body as { evidence?: { signed?: { exit?: unknown[] | null } } }).evidence?.signed;
    expect(signed?.exit, 'the evidence holds the signed pair around the expiry').toHaveLength(2);
  }, 120_000);
});
