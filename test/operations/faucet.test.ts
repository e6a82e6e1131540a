/**
 * Concurrent faucet calls (spec section 4: a grant is 5 SOL and 10000 tokens): identical calls at
 * the same moment are coalesced into whole grants, every caller gets 200 (never a false "chain
 * unreachable"), and a grant is all or nothing: whatever the count, SOL and tokens arrive in the
 * same number of whole grants. Different addresses each get exactly one grant.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startGatewayStack, type GatewayStack } from '../support/gateway-stack.ts';

let stack: GatewayStack;
beforeAll(async () => {
  stack = await startGatewayStack();
}, 180_000);
afterAll(async () => {
  await stack?.stop();
});

const wallet = async () => (await call(stack.base, 'POST', '/api/wallet', {})).body.address as string;

describe('faucet under concurrency', () => {
  it('six identical calls at once: all 200, and SOL and tokens in the same number of whole grants', async () => {
    const address = await wallet();
    const answers = await Promise.all(Array.from({ length: 6 }, () => call(stack.base, 'GET', `/api/faucet/${address}`)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    for (const a of answers) expect(a.body).toEqual({ address, sol: 5, solLamports: 5_000_000_000, tokenUnits: '10000000000', tokenHuman: '10000.000000' });
    const balance = (await call(stack.base, 'GET', `/api/balance/${address}`)).body;
    const grants = balance.solLamports / 5_000_000_000;
    expect(Number.isInteger(grants) && grants >= 1 && grants <= 6).toBe(true);
    expect(BigInt(balance.tokenUnits)).toBe(BigInt(grants) * 10_000_000_000n);
  });

  it('calls for different addresses at once: one grant each', async () => {
    const addresses = await Promise.all(Array.from({ length: 6 }, wallet));
    const answers = await Promise.all(addresses.map((a) => call(stack.base, 'GET', `/api/faucet/${a}`)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    for (const a of addresses)
      expect((await call(stack.base, 'GET', `/api/balance/${a}`)).body).toEqual({
        sol: 5,
        solLamports: 5_000_000_000,
        tokenUnits: '10000000000',
        tokenHuman: '10000.000000',
      });
  });

  it('sequential calls each grant again', async () => {
    const address = await wallet();
    for (let i = 0; i < 3; i++) expect((await call(stack.base, 'GET', `/api/faucet/${address}`)).status).toBe(200);
    expect((await call(stack.base, 'GET', `/api/balance/${address}`)).body).toMatchObject({ solLamports: 15_000_000_000, tokenUnits: '30000000000' });
  });
});
