/**
 * The local chain's account and program subscriptions, as an unmodified web3.js `Connection` sees
 * them (the gateway's chain mirror is fed by `accountSubscribe`/`programSubscribe`:
 * docs/architecture.md#the-chain-mirror): a notification per committed write, with the slot, before
 * the transaction's status is visible; a drained account shows up as the validator's empty system
 * account; filters and unsubscribing work.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, Keypair, LAMPORTS_PER_SOL, SystemProgram, Transaction, type AccountInfo, type KeyedAccountInfo, type PublicKey } from '@solana/web3.js';
import WebSocket from 'ws';
import { startTestChain, type TestChain } from './support.ts';
import { setTimeout as sleep } from 'node:timers/promises';

describe('local chain subscriptions', () => {
  let t: TestChain;
  let conn: Connection;
  let payer: Keypair;

  beforeAll(async () => {
    t = await startTestChain();
    conn = new Connection(t.chain.url, { commitment: 'confirmed', wsEndpoint: t.chain.wsUrl });
    payer = Keypair.generate();
    await conn.confirmTransaction({ signature: await conn.requestAirdrop(payer.publicKey, 10 * LAMPORTS_PER_SOL), ...(await conn.getLatestBlockhash()) });
  });
  afterAll(async () => {
    await t.stop();
  });

  const send = async (to: PublicKey, lamports: number, from = payer) => {
    const tx = new Transaction({ feePayer: from.publicKey, recentBlockhash: (await conn.getLatestBlockhash()).blockhash }).add(
      SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports }),
    );
    tx.sign(from);
    return conn.sendRawTransaction(tx.serialize());
  };

  it('accountSubscribe: one notification per committed write, sent before the signature is confirmed', async () => {
    const wallet = Keypair.generate();
    const seen: Array<{ lamports: number; slot: number; at: number }> = [];
    const id = conn.onAccountChange(
      wallet.publicKey,
      (info: AccountInfo<Buffer>, ctx) => seen.push({ lamports: info.lamports, slot: ctx.slot, at: Date.now() }),
      { commitment: 'confirmed' },
    );
    await sleep(300); // the subscription is set up
    const sig = await send(wallet.publicKey, 2 * LAMPORTS_PER_SOL);
    const confirmedAt = Date.now();
    await expect.poll(() => seen.length, { timeout: 5_000 }).toBe(1);
    expect(seen[0]!.lamports).toBe(2 * LAMPORTS_PER_SOL);
    expect(seen[0]!.at).toBeLessThanOrEqual(confirmedAt + 50);
    expect((await conn.getSignatureStatuses([sig])).value[0]?.slot).toBe(seen[0]!.slot);

    // drained to zero: the account is gone, shown as an empty system account
    const drain = new Transaction({ feePayer: payer.publicKey, recentBlockhash: (await conn.getLatestBlockhash()).blockhash }).add(
      SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: payer.publicKey, lamports: 2 * LAMPORTS_PER_SOL }),
    );
    drain.sign(payer, wallet);
    await conn.sendRawTransaction(drain.serialize());
    await expect.poll(() => seen.length, { timeout: 5_000 }).toBe(2);
    expect(seen[1]!.lamports).toBe(0);

    await conn.removeAccountChangeListener(id);
    await send(wallet.publicKey, LAMPORTS_PER_SOL);
    await sleep(500);
    expect(seen).toHaveLength(2);
  });

  it('programSubscribe: accounts the program owns after the write, with dataSize/memcmp filters', async () => {
    const a = Keypair.generate();
    const b = Keypair.generate();
    const all: KeyedAccountInfo[] = [];
    const withData: KeyedAccountInfo[] = [];
    const id1 = conn.onProgramAccountChange(SystemProgram.programId, (k) => all.push(k), { commitment: 'confirmed', filters: [{ dataSize: 0 }] });
    const id2 = conn.onProgramAccountChange(SystemProgram.programId, (k) => withData.push(k), { commitment: 'confirmed', filters: [{ dataSize: 1 }] });
    await sleep(300);
    await send(a.publicKey, LAMPORTS_PER_SOL);
    await send(b.publicKey, LAMPORTS_PER_SOL);
    await expect
      .poll(() => all.map((k) => k.accountId.toBase58()), { timeout: 5_000 })
      .toEqual(expect.arrayContaining([a.publicKey.toBase58(), b.publicKey.toBase58()]));
    // the payer is written too: every system account the transfers wrote, nothing with data
    expect(all.every((k) => k.accountInfo.data.length === 0)).toBe(true);
    expect(withData).toEqual([]);
    await conn.removeProgramAccountChangeListener(id1);
    await conn.removeProgramAccountChangeListener(id2);
  });

  it('refuses bad subscription params with a JSON-RPC error', async () => {
    const ws = new WebSocket(t.chain.wsUrl);
    await new Promise((r) => ws.once('open', r));
    const answers: unknown[] = [];
    ws.on('message', (m) => answers.push(JSON.parse(String(m))));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'accountSubscribe', params: ['not-a-key'] }));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'slotsUpdatesSubscribe', params: [] }));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'accountUnsubscribe', params: [12345] }));
    await expect.poll(() => answers.length, { timeout: 5_000 }).toBe(3);
    expect(answers).toEqual([
      { jsonrpc: '2.0', id: 1, error: { code: -32602, message: expect.stringMatching(/Invalid params/) } },
      { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } },
      { jsonrpc: '2.0', id: 3, result: false },
    ]);
    ws.close();
  });
});
