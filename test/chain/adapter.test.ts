/**
 * The chain adapter against the local chain over real HTTP and its PubSub WebSocket: every
 * operation with the key of its role, reads answered by the mirror, and every program refusal
 * reachable through the adapter surfacing as ProgramRefusal with the program's code.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, Keypair, PublicKey, Transaction } from '@solana/web3.js';
import { createApproveInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { initializeContract } from '../../adapters/chain/initialize.ts';
import { ProgramRefusal, type PlaceBet } from '../../adapters/chain/port.ts';
import type { RpcChain } from '../../adapters/chain/rpc-chain/index.ts';
import { TEST_PARAMS, fundedBettor, startTestChain, untilUnix, type TestChain } from './support.ts';

const STAKE = 1_000_000_000n; // 1000 tokens
const PRICE = 150_00000000n;
const WIN = (STAKE * 13_000n) / 10_000n;

async function refusal(p: Promise<unknown>): Promise<ProgramRefusal> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof ProgramRefusal)) throw new Error(`expected a ProgramRefusal, got ${String(err)}`);
  return err;
}

const signed = (bettor: Keypair, over: Partial<PlaceBet> = {}): PlaceBet => ({
  stake: { kind: 'signer', bettor },
  side: 'UP',
  amount: STAKE,
  entryPrice: PRICE,
  ...over,
});
const refOf = (bettor: Keypair, seq: bigint) => ({ bettor: bettor.publicKey.toBase58(), seq });

describe('RpcChain on the local chain', () => {
  let t: TestChain;
  let chain: RpcChain;

  beforeAll(async () => {
    t = await startTestChain();
    chain = t.adapter();
  });
  afterAll(() => t.stop());

  it('reads the config the fresh data dir was initialised with: distinct admin and relayer, no liability yet', async () => {
    const cfg = await chain.readConfig();
    expect(cfg).toMatchObject({
      admin: t.keys.admin.publicKey.toBase58(),
      pendingAdmin: null,
      relayer: t.keys.relayer.publicKey.toBase58(),
      mint: t.chain.mint,
      nextBetId: expect.any(BigInt),
      minAmount: TEST_PARAMS.minAmount,
      maxAmount: TEST_PARAMS.maxAmount,
      multiplierBps: TEST_PARAMS.multiplierBps,
      expirySeconds: TEST_PARAMS.expirySeconds,
      refundAfterSeconds: TEST_PARAMS.refundAfterSeconds,
      openLiability: 0n,
      paused: false,
    });
    expect(cfg!.admin).not.toBe(cfg!.relayer);
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

  it('six concurrent faucet calls for one address are six grants, each with its own signature', async () => {
    const who = Keypair.generate();
    const signatures = await Promise.all(Array.from({ length: 6 }, () => chain.faucet(who.publicKey)));
    expect(new Set(signatures).size).toBe(6);
    expect(await chain.balances(who.publicKey)).toEqual({ lamports: 30_000_000_000n, tokenUnits: 60_000_000_000n });
  });

  it("places a signed bet at the bettor's seq, reads it back from the mirror, and settles a win after expiry", async () => {
    const bettor = await fundedBettor(chain);
    const next = (await chain.readConfig())!.nextBetId;
    const placed = await chain.placeBet(signed(bettor));
    // first thing after placing: expiry is seconds away (a slow machine must not turn this into a close)
    expect((await refusal(chain.closeBet(placed.bet, PRICE + 1n))).errorName).toBe('BetNotExpired');
    expect(placed.bet).toMatchObject({
      id: next,
      seq: 0n,
      bettor: bettor.publicKey.toBase58(),
      payer: t.keys.relayer.publicKey.toBase58(),
      side: 'UP',
      amount: STAKE,
      entryPrice: PRICE,
      exitPrice: 0n,
      status: 0,
    });
    expect(placed.signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    const bet = placed.bet;
    expect(bet.expireTime - bet.betTime).toBe(TEST_PARAMS.expirySeconds);
    expect(Math.abs(Number(bet.betTime) - Date.now() / 1000)).toBeLessThan(5); // the Clock follows wall time
    expect(await chain.readBettorState(bettor.publicKey)).toMatchObject({ openBetId: next, betCount: 1n, reclaimed: 0n });
    expect((await chain.scanOpenBets()).map((b) => b.id)).toContain(next);
    expect((await chain.scanBetsOf(bettor.publicKey)).map((b) => b.id)).toEqual([next]);
    expect((await chain.balances(bettor.publicKey)).tokenUnits).toBe(10_000_000_000n - STAKE);
    expect((await chain.readConfig())!.openLiability).toBeGreaterThanOrEqual(WIN);

    await untilUnix(bet.expireTime);
    const vaultBefore = await chain.vaultBalance();
    const closed = await chain.closeBet(bet, PRICE + 1n);
    expect(closed).toMatchObject({ status: 1, exitPrice: PRICE + 1n, already: false });
    expect((await chain.balances(bettor.publicKey)).tokenUnits).toBe(10_000_000_000n - STAKE + WIN);
    expect(await chain.vaultBalance()).toBe(vaultBefore - WIN);
    expect((await chain.readBettorState(bettor.publicKey))!.openBetId).toBeNull();
    expect((await chain.scanOpenBets()).map((b) => b.id)).not.toContain(next);
    // a second close (a retry, another gateway) answers the outcome already on chain and sends nothing
    expect(await chain.closeBet(bet, PRICE)).toMatchObject({ status: 1, exitPrice: PRICE + 1n, already: true, signature: '' });

    // the settled bet's account is reclaimed: rent back to the relayer, gone from the mirror
    const relayerBefore = (await chain.balances(t.keys.relayer.publicKey)).lamports;
    expect(await chain.reclaimBet(bet)).toBe(true);
    expect(await chain.readBet(bet)).toBeNull();
    expect((await chain.balances(t.keys.relayer.publicKey)).lamports).toBeGreaterThan(relayerBefore);
    expect(await chain.readBettorState(bettor.publicKey)).toMatchObject({ betCount: 1n, reclaimed: 1n });
    expect(await chain.reclaimBet(bet)).toBe(false);
    // the next bet of the bettor goes to seq 1
    expect((await chain.placeBet(signed(bettor))).bet.seq).toBe(1n);
  });

  it('a lost bet goes to the house; a tie is replaced by a new bet at seq + 1 in one transaction', async () => {
    const [loser, tier] = await Promise.all([fundedBettor(chain), fundedBettor(chain)]);
    const lost = await chain.placeBet(signed(loser, { side: 'DOWN' }));
    const tie = await chain.placeBet(signed(tier, { side: 'DOWN', amount: 2n * STAKE }));
    await untilUnix(tie.bet.expireTime);
    expect((await chain.closeBet(lost.bet, PRICE + 5n)).status).toBe(2);
    expect((await chain.balances(loser.publicKey)).tokenUnits).toBe(10_000_000_000n - STAKE);

    const { closed, placed } = await chain.closeAndReplace(tie.bet, PRICE, tier, PRICE + 7n);
    expect(closed).toMatchObject({ status: 3, exitPrice: PRICE });
    expect(placed.signature).toBe(closed.signature);
    expect(placed.bet).toMatchObject({
      seq: tie.bet.seq + 1n,
      bettor: tier.publicKey.toBase58(),
      side: 'DOWN',
      amount: 2n * STAKE,
      entryPrice: PRICE + 7n,
      status: 0,
    });
    expect(placed.bet.id).toBeGreaterThan(tie.bet.id);
    expect((await chain.readBettorState(tier.publicKey))!.openBetId).toBe(placed.bet.id);
    expect((await chain.balances(tier.publicKey)).tokenUnits).toBe(10_000_000_000n - 2n * STAKE);
  });

  it('refund_expired returns exactly the stake once expiry + refund_after_seconds passed, not before', async () => {
    const bettor = await fundedBettor(chain);
    const { bet } = await chain.placeBet(signed(bettor));
    await untilUnix(bet.expireTime);
    expect((await refusal(chain.refundExpired(bet))).errorName).toBe('RefundNotYetAllowed');
    await untilUnix(bet.expireTime + TEST_PARAMS.refundAfterSeconds);
    expect(await chain.refundExpired(bet)).toMatchObject({ status: 3, exitPrice: PRICE, already: false });
    expect((await chain.balances(bettor.publicKey)).tokenUnits).toBe(10_000_000_000n);
    expect(await chain.refundExpired(bet)).toMatchObject({ status: 3, already: true });
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
    const approve = new Transaction({ feePayer: bettor.publicKey, recentBlockhash: blockhash }).add(
      createApproveInstruction(token, t.keys.relayer.publicKey, bettor.publicKey, STAKE),
    );
    approve.sign(bettor);
    const sig = await conn.sendRawTransaction(approve.serialize());
    expect((await conn.getSignatureStatus(sig)).value?.err).toBeNull();

    const placed = await chain.placeBet({ stake: { kind: 'delegate', bettor: bettor.publicKey }, side: 'UP', amount: STAKE, entryPrice: PRICE });
    expect(placed.bet).toMatchObject({ bettor: bettor.publicKey.toBase58(), amount: STAKE, status: 0 });
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

  it('pauses and resumes bet intake with the admin key (Paused); the relayer key cannot', async () => {
    const bettor = await fundedBettor(chain);
    await chain.setPaused(true);
    expect((await chain.readConfig())!.paused).toBe(true);
    const refused = await refusal(chain.placeBet(signed(bettor)));
    expect([refused.code, refused.errorName]).toEqual([6013, 'Paused']);
    await chain.setPaused(false);
    await expect(chain.placeBet(signed(bettor))).resolves.toMatchObject({ bet: { status: 0 } });
    const relayerAsAdmin = t.adapter({ keys: { relayer: t.keys.relayer, admin: t.keys.relayer } });
    expect((await refusal(relayerAsAdmin.setPaused(true))).code).toBe(6002);
  });

  it('refuses a second initialize (AlreadyInitialized) and initializeContract leaves the config alone', async () => {
    expect((await refusal(chain.initialize(TEST_PARAMS))).code).toBe(6000);
    expect(await initializeContract(chain, { ...TEST_PARAMS, expirySeconds: 99n })).toBe('already-initialized');
    expect((await chain.readConfig())!.expirySeconds).toBe(TEST_PARAMS.expirySeconds);
  });

  it('reads nothing for a bet or bettor that does not exist; closing it is refused', async () => {
    const nobody = Keypair.generate();
    expect(await chain.readBet(refOf(nobody, 0n))).toBeNull();
    expect(await chain.readBettorState(nobody.publicKey)).toBeNull();
    expect(await chain.scanBetsOf(nobody.publicKey)).toEqual([]);
    expect((await refusal(chain.closeBet(refOf(nobody, 0n), PRICE))).errorName).toMatch(/InvalidAccount/);
  });

  it('refuses a stranger as relayer (Unauthorized)', async () => {
    const stranger = Keypair.generate();
    await chain.faucet(stranger.publicKey);
    const foreign = t.adapter({ keys: { relayer: stranger } });
    const bettor = await fundedBettor(chain);
    expect((await refusal(foreign.placeBet(signed(bettor)))).code).toBe(6002);
  });

  it("refuses a replay signed by another bettor than the bet's (BettorMismatch)", async () => {
    const [owner, other] = await Promise.all([fundedBettor(chain), fundedBettor(chain)]);
    const placed = await chain.placeBet(signed(owner));
    await chain.placeBet(signed(other)); // other has a bettor account of its own
    await untilUnix(placed.bet.expireTime);
    const refused = await refusal(chain.closeAndReplace(placed.bet, PRICE, other, PRICE));
    expect(refused.errorName).toBe('BettorMismatch');
  });

  it('a placement whose answer is lost on the way back is found by its signature', async () => {
    let lost = 0;
    // forwards every request to the chain, but cuts the connection instead of returning a sendTransaction answer
    const proxy = createServer((req: IncomingMessage, res: ServerResponse) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        fetch(t.chain.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
          .then(async (answer) => {
            const text = await answer.text();
            if (body.includes('"sendTransaction"')) {
              lost++;
              res.socket?.destroy();
            } else res.writeHead(200, { 'content-type': 'application/json' }).end(text);
          })
          .catch(() => res.socket?.destroy());
      });
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
    try {
      const lossy = t.adapter({ url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` });
      const bettor = await fundedBettor(chain);
      const placed = await lossy.placeBet(signed(bettor));
      expect(lost).toBeGreaterThanOrEqual(1); // a reset on a reused connection is sent once more, and cut again
      expect(await chain.readBet(placed.bet)).toMatchObject({ bettor: bettor.publicKey.toBase58(), status: 0 });
    } finally {
      proxy.closeAllConnections();
      await new Promise((r) => proxy.close(r));
    }
  });

  it("placements from two gateways for different bettors run in parallel: distinct ids, each at its own bettor's seq", async () => {
    const other = t.adapter();
    const bettors = await Promise.all(Array.from({ length: 8 }, () => fundedBettor(chain)));
    const placed = await Promise.all(bettors.map((b, i) => (i % 2 ? other : chain).placeBet(signed(b))));
    expect(new Set(placed.map((p) => p.bet.id)).size).toBe(8);
    for (const [i, p] of placed.entries()) expect(p.bet).toMatchObject({ bettor: bettors[i]!.publicKey.toBase58(), seq: 0n });
  });

  it("sees a change made by someone else's transaction: the other gateway's bet and the admin's pause", async () => {
    const other = t.adapter();
    const bettor = await fundedBettor(chain);
    const placed = await other.placeBet(signed(bettor));
    await expect.poll(async () => (await chain.readBet(placed.bet))?.id, { timeout: 3_000 }).toBe(placed.bet.id);
    await other.setPaused(true);
    await expect.poll(async () => (await chain.readConfig())!.paused, { timeout: 3_000 }).toBe(true);
    await other.setPaused(false);
    await expect.poll(async () => (await chain.readConfig())!.paused, { timeout: 3_000 }).toBe(false);
  });

  it('refuses a bet the vault cannot cover (VaultCannotCover); the admin may withdraw only the surplus (WithdrawBelowLiability)', async () => {
    const cfg = (await chain.readConfig())!;
    const vault = await chain.vaultBalance();
    const adminToken = getAssociatedTokenAddressSync(new PublicKey(t.chain.mint), t.keys.admin.publicKey);
    await chain.faucet(t.keys.admin.publicKey); // creates the admin's token account
    const surplus = vault - cfg.openLiability;
    expect((await refusal(chain.withdraw(surplus + 1n, adminToken))).errorName).toBe('WithdrawBelowLiability');
    // a new bet brings its stake into the vault and adds its win to the liability: leave less than (win - stake) spare
    await chain.withdraw(surplus - (WIN - STAKE) / 2n, adminToken);
    const bettor = await fundedBettor(chain);
    const refused = await refusal(chain.placeBet(signed(bettor)));
    expect([refused.code, refused.errorName]).toEqual([6034, 'VaultCannotCover']);
  });
});

describe('RpcChain on a local chain started with GW_INIT=off', () => {
  let t: TestChain;
  beforeAll(async () => {
    t = await startTestChain(null);
  });
  afterAll(() => t.stop());

  it('refuses to pause an uninitialised contract, refuses bad parameters, initialises with the upgrade authority only', async () => {
    const chain = t.adapter({ vaultFunding: 0n });
    expect(await chain.readConfig()).toBeNull();
    expect((await refusal(chain.setPaused(true))).code).toBe(6001);
    expect((await refusal(chain.initialize({ ...TEST_PARAMS, expirySeconds: 0n }))).code).toBe(6012);
    // a key that is not the program's upgrade authority cannot initialise
    const squatter = t.adapter({ keys: { relayer: t.keys.relayer, admin: t.keys.admin, upgradeAuthority: t.keys.relayer } });
    expect((await refusal(squatter.initialize(TEST_PARAMS))).errorName).toBe('NotUpgradeAuthority');
    expect(await initializeContract(chain, TEST_PARAMS)).toBe('initialized');
    expect((await chain.readConfig())!.expirySeconds).toBe(TEST_PARAMS.expirySeconds);
    expect(await chain.vaultBalance()).toBe(0n);

    // an empty vault covers no bet (VaultCannotCover)
    const bettor = await fundedBettor(chain);
    expect((await refusal(chain.placeBet(signed(bettor)))).errorName).toBe('VaultCannotCover');
  });
});
