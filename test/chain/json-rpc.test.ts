/**
 * The local chain's JSON-RPC as an unmodified web3.js `Connection` sees it, and its answers
 * to malformed requests (standard JSON-RPC errors, never a crash).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SendTransactionError,
  SystemProgram,
  SYSVAR_CLOCK_PUBKEY,
  Transaction,
  sendAndConfirmTransaction,
} from '@solana/web3.js';
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { BET_SIZE, BET_STATUS_OFFSET, PROGRAM_ID, configAddress, placeBetIx } from '../../adapters/chain/codec.ts';
import { fundedBettor, startTestChain, type TestChain } from './support.ts';
import { setTimeout as sleep } from 'node:timers/promises';

describe('local chain JSON-RPC', () => {
  let t: TestChain;
  let conn: Connection;
  let payer: Keypair;

  const post = async (body: string): Promise<unknown> =>
    (await fetch(t.chain.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json();

  beforeAll(async () => {
    t = await startTestChain();
    conn = new Connection(t.chain.url, { commitment: 'confirmed', wsEndpoint: t.chain.wsUrl });
    payer = Keypair.generate();
    const sig = await conn.requestAirdrop(payer.publicKey, 10 * LAMPORTS_PER_SOL);
    expect((await conn.getSignatureStatuses([sig])).value[0]?.confirmationStatus).toBe('finalized');
  });
  afterAll(() => t.stop());

  const transfer = async (lamports: number, to = Keypair.generate().publicKey) => {
    const { blockhash } = await conn.getLatestBlockhash();
    const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash }).add(
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports }),
    );
    tx.sign(payer);
    return { tx, to };
  };

  it('identifies itself: genesis hash, version, health, advancing slots, a Clock on wall time', async () => {
    expect(await conn.getGenesisHash()).toBe(t.chain.genesisHash);
    expect((await conn.getVersion())['solana-core']).toMatch(/^\d+\.\d+\.\d+$/);
    expect(await (await fetch(`${t.chain.url}/health`)).text()).toBe('ok');
    const slot = await conn.getSlot();
    await sleep(1_000);
    expect(await conn.getSlot()).toBeGreaterThan(slot);
    const clock = await conn.getAccountInfo(SYSVAR_CLOCK_PUBKEY);
    const unix = Number(clock!.data.readBigInt64LE(32));
    expect(Math.abs(unix - Date.now() / 1000)).toBeLessThan(5); // the Clock follows wall time
    expect(Number(clock!.data.readBigUInt64LE(0))).toBeGreaterThanOrEqual(slot);
  });

  it('sends a transfer and reports its status and balances', async () => {
    const { tx, to } = await transfer(1_234_567);
    const sig = await conn.sendRawTransaction(tx.serialize());
    const st = (await conn.getSignatureStatuses([sig], { searchTransactionHistory: true })).value[0];
    expect(st).toMatchObject({ err: null, confirmationStatus: 'finalized' });
    expect(await conn.getBalance(to)).toBe(1_234_567);
    expect((await conn.getSignatureStatuses([Keypair.generate().publicKey.toBase58() + '1111'])).value[0]).toBeNull();
  });

  it('confirms through signature subscriptions: confirmTransaction and sendAndConfirmTransaction resolve', async () => {
    const { tx, to } = await transfer(2_500_000);
    const sig = await conn.sendRawTransaction(tx.serialize());
    const { blockhash, lastValidBlockHeight } = await conn.getLatestBlockhash();
    expect((await conn.confirmTransaction({ signature: sig, blockhash, lastValidBlockHeight })).value.err).toBeNull();
    const again = new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 1_000 }));
    const sig2 = await sendAndConfirmTransaction(conn, again, [payer]);
    expect((await conn.getSignatureStatuses([sig2])).value[0]?.err).toBeNull();
    expect(await conn.getBalance(to)).toBe(2_501_000);
    // a transaction that lands failed (no preflight) is confirmed with its error
    const bad = await transfer(1_000 * LAMPORTS_PER_SOL);
    const badSig = await conn.sendRawTransaction(bad.tx.serialize(), { skipPreflight: true });
    const latest = await conn.getLatestBlockhash();
    expect((await conn.confirmTransaction({ signature: badSig, ...latest })).value.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
  });

  it('simulates, and answers preflight failures with err, InstructionError/Custom and logs', async () => {
    const ok = await transfer(1_000_000);
    const sim = await conn.simulateTransaction(ok.tx);
    expect(sim.value.err).toBeNull();
    expect(sim.value.logs?.join('\n')).toMatch(/11111111111111111111111111111111 success/);
    const bad = await transfer(1_000 * LAMPORTS_PER_SOL);
    expect((await conn.simulateTransaction(bad.tx)).value.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    const err = await conn.sendRawTransaction(bad.tx.serialize()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SendTransactionError);
    expect((err as SendTransactionError).transactionError.message).toMatch(/custom program error: 0x1/);
    expect((err as SendTransactionError).transactionError.logs?.join('\n')).toMatch(/insufficient lamports/);
  });

  it("carries the updown program's custom error code in preflight errors", async () => {
    const chain = t.adapter();
    const bettor = await fundedBettor(chain);
    const { vault } = (await chain.readConfig())!;
    const ix = placeBetIx(
      {
        seq: 0n,
        bettor: bettor.publicKey,
        bettorToken: getAssociatedTokenAddressSync(new PublicKey(t.chain.mint), bettor.publicKey),
        vault: new PublicKey(vault),
        relayer: t.keys.relayer.publicKey,
        delegated: false,
      },
      'UP',
      1n, // below min_amount
      15_000_000_000n,
    );
    const { blockhash } = await conn.getLatestBlockhash();
    const tx = new Transaction({ feePayer: t.keys.relayer.publicKey, recentBlockhash: blockhash }).add(ix);
    tx.sign(t.keys.relayer, bettor);
    const err = (await conn.sendRawTransaction(tx.serialize()).catch((e: unknown) => e)) as SendTransactionError;
    expect(err).toBeInstanceOf(SendTransactionError);
    expect(err.transactionError.message).toContain(`custom program error: 0x${(6014).toString(16)}`);
    const sim = await conn.simulateTransaction(tx);
    expect(sim.value.err).toEqual({ InstructionError: [0, { Custom: 6014 }] });
    expect(sim.value.logs?.some((l) => l.includes(PROGRAM_ID.toBase58()))).toBe(true);
  });

  it('refuses a replayed transaction, an unknown blockhash and a missing signature', async () => {
    const { tx } = await transfer(2_000_000);
    await conn.sendRawTransaction(tx.serialize());
    await expect(conn.sendRawTransaction(tx.serialize())).rejects.toThrow(/already been processed/);
    const stale = new Transaction({ feePayer: payer.publicKey, recentBlockhash: Keypair.generate().publicKey.toBase58() }).add(
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: payer.publicKey, lamports: 1 }),
    );
    stale.sign(payer);
    await expect(conn.sendRawTransaction(stale.serialize())).rejects.toThrow(/Blockhash not found/);
    const unsigned = (await transfer(3_000_000)).tx;
    unsigned.signatures[0]!.signature = Buffer.alloc(64, 7);
    await expect(conn.sendRawTransaction(unsigned.serialize({ verifySignatures: false }))).rejects.toThrow(/signature verification/);
  });

  it('serves accounts: base64 data, several at once, program accounts with filters, token balances, rent', async () => {
    const config = await conn.getAccountInfo(configAddress());
    expect(config?.owner.equals(PROGRAM_ID)).toBe(true);
    const both = await conn.getMultipleAccountsInfo([configAddress(), Keypair.generate().publicKey]);
    expect(both[0]?.data.equals(config!.data)).toBe(true);
    expect(both[1]).toBeNull();
    const chain = t.adapter();
    const bettor = await fundedBettor(chain);
    const placed = await chain.placeBet({ stake: { kind: 'signer', bettor }, side: 'DOWN', amount: 100_000_000n, entryPrice: 1n });
    const open = await conn.getProgramAccounts(PROGRAM_ID, { filters: [{ dataSize: BET_SIZE }, { memcmp: { offset: BET_STATUS_OFFSET, bytes: '1' } }] });
    expect(open.length).toBeGreaterThan(0);
    expect(open.every((a) => a.account.data.length === BET_SIZE && a.account.data[BET_STATUS_OFFSET] === 0)).toBe(true);
    const none = await conn.getProgramAccounts(PROGRAM_ID, { filters: [{ dataSize: BET_SIZE }, { memcmp: { offset: BET_STATUS_OFFSET, bytes: '2' } }] });
    expect(none).toEqual([]);
    expect(placed.bet.id).toBeGreaterThanOrEqual(1n);
    const vault = (await chain.readConfig())!.vault;
    const bal = await conn.getTokenAccountBalance(new PublicKey(vault));
    expect(bal.value.decimals).toBe(6);
    expect(BigInt(bal.value.amount)).toBe(await chain.vaultBalance());
    await expect(conn.getTokenAccountBalance(payer.publicKey)).rejects.toThrow(/not a Token account/);
    expect(await conn.getMinimumBalanceForRentExemption(BET_SIZE)).toBeGreaterThan(0);
  });

  it('answers malformed requests with standard JSON-RPC errors and keeps serving', async () => {
    expect(await post('{not json')).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null });
    expect(await post('{}')).toMatchObject({ error: { code: -32600 }, id: null });
    expect(await post('"hello"')).toMatchObject({ error: { code: -32600 } });
    expect(await post('[]')).toMatchObject({ error: { code: -32600 } });
    expect(await post('{"jsonrpc":"2.0","id":7,"method":"noSuchMethod"}')).toMatchObject({ error: { code: -32601 }, id: 7 });
    expect(await post('{"jsonrpc":"2.0","id":8,"method":"toString"}')).toMatchObject({ error: { code: -32601 }, id: 8 });
    expect(await post('{"jsonrpc":"2.0","id":9,"method":"getBalance","params":["not-a-key"]}')).toMatchObject({ error: { code: -32602 }, id: 9 });
    expect(await post('{"jsonrpc":"2.0","id":10,"method":"getBalance","params":{"a":1}}')).toMatchObject({ error: { code: -32602 }, id: 10 });
    expect(await post('{"jsonrpc":"2.0","id":11,"method":"sendTransaction","params":["!!!", {"encoding":"base64"}]}')).toMatchObject({
      error: { code: -32602 },
      id: 11,
    });
    expect(await post('{"jsonrpc":"2.0","id":12,"method":"sendTransaction","params":["AAAA", {"encoding":"base64"}]}')).toMatchObject({
      error: { code: -32602 },
      id: 12,
    });
    expect(
      await post(
        '{"jsonrpc":"2.0","id":13,"method":"getProgramAccounts","params":["11111111111111111111111111111111",{"filters":[{"memcmp":{"offset":-1,"bytes":"1"}}]}]}',
      ),
    ).toMatchObject({ error: { code: -32602 } });
    const batch = await post(
      '[{"jsonrpc":"2.0","id":1,"method":"getHealth"},{"jsonrpc":"1.0","id":2,"method":"getSlot"},{"jsonrpc":"2.0","id":3,"method":"getSlot"}]',
    );
    expect(batch).toMatchObject([
      { result: 'ok', id: 1 },
      { error: { code: -32600 }, id: 2 },
      { result: expect.any(Number), id: 3 },
    ]);
    const notPost = await fetch(t.chain.url, { method: 'PUT', body: '{}' });
    expect(notPost.status).toBe(405);
    expect(await conn.getSlot()).toBeGreaterThan(0);
  });
});
