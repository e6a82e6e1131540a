/**
 * The chain adapter against the local chain over real HTTP: every operation, and every
 * program refusal reachable through the adapter's operations surfacing as ProgramRefusal
 * with the program's code.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, Keypair, PublicKey, Transaction } from '@solana/web3.js';
import { createApproveInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { initializeContract } from '../../adapters/chain/initialize.ts';
import { ProgramRefusal, type PlaceBet } from '../../adapters/chain/port.ts';
import type { RpcChain } from '../../adapters/chain/rpc-chain.ts';
import { TEST_PARAMS, fundedBettor, startTestChain, untilUnix, type TestChain } from './support.ts';

const STAKE = 1_000_000_000n; // 1000 tokens
const PRICE = 150_00000000n;

async function refusal(p: Promise<unknown>): Promise<ProgramRefusal> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof ProgramRefusal)) throw new Error(`expected a ProgramRefusal, got ${String(err)}`);
  return err;
}

const signed = (bettor: Keypair, over: Partial<PlaceBet> = {}): PlaceBet => ({ stake: { kind: 'signer', bettor }, side: 'UP', amount: STAKE, entryPrice: PRICE, ...over });

describe('RpcChain on the local chain', () => {
  let t: TestChain;
  let chain: RpcChain;

  beforeAll(async () => {
    t = await startTestChain();
    chain = t.adapter();
  });
  afterAll(() => t.stop());

  it('reads the config the fresh data dir was initialised with', async () => {
    const cfg = await chain.readConfig();
    expect(cfg).toMatchObject({
      admin: t.operator.publicKey.toBase58(),
      relayer: t.operator.publicKey.toBase58(),
      mint: t.chain.mint,
      nextBetId: expect.any(BigInt),
      minAmount: TEST_PARAMS.minAmount,
      maxAmount: TEST_PARAMS.maxAmount,
      multiplierBps: TEST_PARAMS.multiplierBps,
      expirySeconds: TEST_PARAMS.expirySeconds,
      paused: false,
    });
    expect(await chain.vaultBalance()).toBe(1_000_000n * 1_000_000n);
  });

  it('knows its genesis hash and calls the chain local only when declared', async () => {
    expect(await chain.genesisHash()).toBe(t.chain.genesisHash);
    expect(await chain.clusterKind()).toBe('local');
    expect(await t.adapter({ knownLocalGenesis: [] }).clusterKind()).toBe('unknown');
  });

  it('faucet grants 5 SOL and 10000 tokens in one transaction, creating the token account, each time it is asked', async () => {
    const who = Keypair.generate();
    expect(await chain.balances(who.publicKey)).toEqual({ lamports: 0n, tokenUnits: 0n });
    expect(await chain.faucet(who.publicKey)).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    expect(await chain.balances(who.publicKey)).toEqual({ lamports: 5_000_000_000n, tokenUnits: 10_000_000_000n });
    await chain.faucet(who.publicKey); // same blockhash window, same instructions: still a second grant
    expect(await chain.balances(who.publicKey)).toEqual({ lamports: 10_000_000_000n, tokenUnits: 20_000_000_000n });
  });

  it('six concurrent faucet calls for one address are one grant, all answered with its signature', async () => {
    const who = Keypair.generate();
    const signatures = await Promise.all(Array.from({ length: 6 }, () => chain.faucet(who.publicKey)));
    expect(new Set(signatures).size).toBe(1);
    expect(await chain.balances(who.publicKey)).toEqual({ lamports: 5_000_000_000n, tokenUnits: 10_000_000_000n });
  });

  it('places a signed bet, reads it back, finds it in the scans, and settles a win after expiry', async () => {
    const bettor = await fundedBettor(chain);
    const next = (await chain.readConfig())!.nextBetId;
    const placed = await chain.placeBet(signed(bettor));
    // first thing after placing: expiry is seconds away (a slow machine must not turn this into a close)
    expect((await refusal(chain.closeBet(placed.betId, PRICE + 1n))).errorName).toBe('BetNotExpired');
    expect(placed.betId).toBe(next);
    expect(placed.signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    const bet = await chain.readBet(placed.betId);
    expect(bet).toMatchObject({ id: next, bettor: bettor.publicKey.toBase58(), side: 'UP', amount: STAKE, entryPrice: PRICE, exitPrice: 0n, status: 0 });
    expect(bet!.expireTime - bet!.betTime).toBe(TEST_PARAMS.expirySeconds);
    expect(Math.abs(Number(bet!.betTime) - Date.now() / 1000)).toBeLessThan(5); // the Clock follows wall time
    expect(await chain.readOpenBetId(bettor.publicKey)).toBe(next);
    expect((await chain.scanOpenBets()).map((b) => b.id)).toContain(next);
    expect((await chain.scanBetsOf(bettor.publicKey)).map((b) => b.id)).toEqual([next]);
    expect((await chain.balances(bettor.publicKey)).tokenUnits).toBe(10_000_000_000n - STAKE);

    await untilUnix(bet!.expireTime);
    const vaultBefore = await chain.vaultBalance();
    const closed = await chain.closeBet(next, PRICE + 1n);
    expect(closed.status).toBe(1);
    expect((await chain.balances(bettor.publicKey)).tokenUnits).toBe(10_000_000_000n - STAKE + (STAKE * 13_000n) / 10_000n);
    expect(await chain.vaultBalance()).toBe(vaultBefore - (STAKE * 13_000n) / 10_000n);
    expect(await chain.readOpenBetId(bettor.publicKey)).toBeNull();
    expect((await chain.scanOpenBets()).map((b) => b.id)).not.toContain(next);
    expect((await chain.readBet(next))!.exitPrice).toBe(PRICE + 1n);
    const again = await refusal(chain.closeBet(next, PRICE));
    expect([again.code, again.errorName]).toEqual([6021, 'BetAlreadyClosed']);
  });

  it('a lost bet goes to the house; a tie is replaced by a new bet in one transaction', async () => {
    const [loser, tier] = await Promise.all([fundedBettor(chain), fundedBettor(chain)]);
    const lost = await chain.placeBet(signed(loser, { side: 'DOWN' }));
    const tie = await chain.placeBet(signed(tier, { side: 'DOWN', amount: 2n * STAKE }));
    await untilUnix((await chain.readBet(tie.betId))!.expireTime);
    expect((await chain.closeBet(lost.betId, PRICE + 5n)).status).toBe(2);
    expect((await chain.balances(loser.publicKey)).tokenUnits).toBe(10_000_000_000n - STAKE);

    const { closed, placed } = await chain.closeAndReplace(tie.betId, PRICE, tier, PRICE + 7n);
    expect(closed.status).toBe(3);
    expect(placed.signature).toBe(closed.signature);
    expect(placed.betId).toBeGreaterThan(tie.betId);
    expect(await chain.readBet(placed.betId)).toMatchObject({ bettor: tier.publicKey.toBase58(), side: 'DOWN', amount: 2n * STAKE, entryPrice: PRICE + 7n, status: 0 });
    expect(await chain.readOpenBetId(tier.publicKey)).toBe(placed.betId);
    expect((await chain.balances(tier.publicKey)).tokenUnits).toBe(10_000_000_000n - 2n * STAKE);
  });

  it('places a delegated bet once the bettor approved the relayer, refuses it before (DelegateMissing)', async () => {
    const bettor = await fundedBettor(chain);
    const refused = await refusal(chain.placeBet({ stake: { kind: 'delegate', bettor: bettor.publicKey }, side: 'UP', amount: STAKE, entryPrice: PRICE }));
    expect([refused.code, refused.errorName]).toEqual([6026, 'DelegateMissing']);
    expect(refused.logs.length).toBeGreaterThan(0);

    // the bettor approves with its own wallet through an unmodified web3.js Connection
    const conn = new Connection(t.chain.url, 'confirmed');
    const token = getAssociatedTokenAddressSync(new PublicKey(t.chain.mint), bettor.publicKey);
    const { blockhash } = await conn.getLatestBlockhash();
    const approve = new Transaction({ feePayer: bettor.publicKey, recentBlockhash: blockhash }).add(createApproveInstruction(token, t.operator.publicKey, bettor.publicKey, STAKE));
    approve.sign(bettor);
    const sig = await conn.sendRawTransaction(approve.serialize());
    expect((await conn.getSignatureStatus(sig)).value?.err).toBeNull();

    const placed = await chain.placeBet({ stake: { kind: 'delegate', bettor: bettor.publicKey }, side: 'UP', amount: STAKE, entryPrice: PRICE });
    expect(await chain.readBet(placed.betId)).toMatchObject({ bettor: bettor.publicKey.toBase58(), amount: STAKE, status: 0 });
  });

  it('refuses bets outside the limits, with a zero price, and a second open bet', async () => {
    const bettor = await fundedBettor(chain);
    expect((await refusal(chain.placeBet(signed(bettor, { amount: TEST_PARAMS.minAmount - 1n })))).code).toBe(6014);
    expect((await refusal(chain.placeBet(signed(bettor, { amount: TEST_PARAMS.maxAmount + 1n })))).code).toBe(6015);
    expect((await refusal(chain.placeBet(signed(bettor, { entryPrice: 0n })))).code).toBe(6017);
    await chain.placeBet(signed(bettor));
    const second = await refusal(chain.placeBet(signed(bettor)));
    expect([second.code, second.errorName]).toEqual([6019, 'OpenBetExists']);
  });

  it('pauses and resumes bet intake (Paused)', async () => {
    const bettor = await fundedBettor(chain);
    await chain.setPaused(true);
    expect((await chain.readConfig())!.paused).toBe(true);
    const refused = await refusal(chain.placeBet(signed(bettor)));
    expect([refused.code, refused.errorName]).toEqual([6013, 'Paused']);
    await chain.setPaused(false);
    await expect(chain.placeBet(signed(bettor))).resolves.toMatchObject({ betId: expect.any(BigInt) });
  });

  it('refuses a second initialize (AlreadyInitialized) and initializeContract leaves the config alone', async () => {
    expect((await refusal(chain.initialize(TEST_PARAMS))).code).toBe(6000);
    expect(await initializeContract(chain, { ...TEST_PARAMS, expirySeconds: 99n })).toBe('already-initialized');
    expect((await chain.readConfig())!.expirySeconds).toBe(TEST_PARAMS.expirySeconds);
  });

  it('reads nothing for a bet that does not exist, and refuses to close it', async () => {
    expect(await chain.readBet(999_999n)).toBeNull();
    expect(await chain.readOpenBetId(Keypair.generate().publicKey)).toBeNull();
    expect(await chain.scanBetsOf(Keypair.generate().publicKey)).toEqual([]);
    expect((await refusal(chain.closeBet(999_999n, PRICE))).errorName).toBe('InvalidAccountData');
  });

  it('refuses a stranger as admin or relayer (Unauthorized)', async () => {
    const stranger = Keypair.generate();
    await chain.faucet(stranger.publicKey);
    const foreign = t.adapter({ operator: stranger });
    expect((await refusal(foreign.setPaused(true))).code).toBe(6002);
    const bettor = await fundedBettor(chain);
    expect((await refusal(foreign.placeBet(signed(bettor)))).code).toBe(6002);
  });

  it('refuses a replay signed by another bettor than the bet’s (BettorMismatch)', async () => {
    const [owner, other] = await Promise.all([fundedBettor(chain), fundedBettor(chain)]);
    const placed = await chain.placeBet(signed(owner));
    await chain.placeBet(signed(other)); // other has a bettor account of its own
    await untilUnix((await chain.readBet(placed.betId))!.expireTime);
    const refused = await refusal(chain.closeAndReplace(placed.betId, PRICE, other, PRICE));
    expect(refused.errorName).toBe('BettorMismatch');
  });

  it('a placement whose answer is lost on the way back is found by its signature', async () => {
    let lost = 0;
    // forwards every request to the chain, but cuts the connection instead of returning a sendTransaction answer
    const proxy = createServer((req: IncomingMessage, res: ServerResponse) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        void fetch(t.chain.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(async (answer) => {
          const text = await answer.text();
          if (body.includes('"sendTransaction"')) {
            lost++;
            res.socket?.destroy();
          } else res.writeHead(200, { 'content-type': 'application/json' }).end(text);
        });
      });
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
    try {
      const lossy = t.adapter({ url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` });
      const bettor = await fundedBettor(chain);
      const placed = await lossy.placeBet(signed(bettor));
      expect(lost).toBe(1);
      expect(await chain.readBet(placed.betId)).toMatchObject({ bettor: bettor.publicKey.toBase58(), status: 0 });
    } finally {
      proxy.closeAllConnections();
      await new Promise((r) => proxy.close(r));
    }
  });

  it('concurrent placements from two gateways for different bettors all succeed; a stale id without retry is BetIdMismatch', async () => {
    const other = t.adapter();
    const bettors = await Promise.all(Array.from({ length: 8 }, () => fundedBettor(chain)));
    const placed = await Promise.all(bettors.map((b, i) => (i % 2 ? other : chain).placeBet(signed(b))));
    expect(new Set(placed.map((p) => p.betId)).size).toBe(8);
    for (const [i, p] of placed.entries()) expect((await chain.readBet(p.betId))!.bettor).toBe(bettors[i]!.publicKey.toBase58());

    const stale = t.adapter({ placeAttempts: 1 });
    await stale.placeBet(signed(await fundedBettor(chain))); // caches its next id
    await chain.placeBet(signed(await fundedBettor(chain))); // someone else takes it
    const refused = await refusal(stale.placeBet(signed(await fundedBettor(chain))));
    expect([refused.code, refused.errorName]).toEqual([6018, 'BetIdMismatch']);
  });
});

describe('RpcChain on a local chain started with GW_INIT=off', () => {
  let t: TestChain;
  beforeAll(async () => {
    t = await startTestChain(null);
  });
  afterAll(() => t.stop());

  it('refuses to pause an uninitialised contract, refuses bad parameters, then initialises from the gateway side', async () => {
    const chain = t.adapter({ vaultFunding: 0n });
    expect(await chain.readConfig()).toBeNull();
    expect((await refusal(chain.setPaused(true))).code).toBe(6001);
    expect((await refusal(chain.initialize({ ...TEST_PARAMS, expirySeconds: 0n }))).code).toBe(6012);
    expect(await initializeContract(chain, TEST_PARAMS)).toBe('initialized');
    expect((await chain.readConfig())!.expirySeconds).toBe(TEST_PARAMS.expirySeconds);
    expect(await chain.vaultBalance()).toBe(0n);

    // an empty vault cannot pay a win (VaultInsufficient)
    const bettor = await fundedBettor(chain);
    const placed = await chain.placeBet(signed(bettor));
    await untilUnix((await chain.readBet(placed.betId))!.expireTime);
    expect((await refusal(chain.closeBet(placed.betId, PRICE + 1n))).code).toBe(6027);
  });
});
