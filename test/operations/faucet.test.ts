/**
 * Concurrent faucet calls (docs/gateway-api.md#faucet: a grant is 5 SOL and 10000 tokens per
 * call): identical calls at the same moment each answer 200 with a grant, and each is one, whole:
 * six calls bring six grants of SOL and of tokens. Different addresses each get exactly one grant.
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
  it('six identical calls at once: all 200, and six whole grants', async () => {
    const address = await wallet();
    const answers = await Promise.all(Array.from({ length: 6 }, () => call(stack.base, 'GET', `/api/faucet/${address}`)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    for (const a of answers) expect(a.body).toEqual({ address, sol: 5, solLamports: 5_000_000_000, tokenUnits: '10000000000', tokenHuman: '10000.000000' });
    const balance = (await call(stack.base, 'GET', `/api/balance/${address}`)).body;
    expect(balance).toMatchObject({ solLamports: 6 * 5_000_000_000, tokenUnits: String(6n * 10_000_000_000n) });
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
