/**
 * The landing engine against a scripted JSON-RPC transport that fails like a public cluster
 * (docs/architecture.md#landing-transactions): concurrent sends share one blockhash fetch and one
 * status poll; dropped bytes are rebroadcast unchanged until they land; bytes whose blockhash
 * expired unlanded are signed again (only then); a 429 is waited out; `AlreadyProcessed` is
 * success; a chain that never answers ends in ChainUnavailable.
 */
import { getBase58Decoder, getBase58Encoder } from '@solana/kit';
import { Keypair, SystemProgram } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { ChainUnavailable } from './port.ts';
import { ChainUnreachable, RateLimited, RpcClient, type JsonRpcTransport } from './rpc-client.ts';
import { TxSender } from './tx-sender.ts';
import { createMemoryIntentStore } from '../store/intents/memory.ts';
import type { PendingIntent } from '../store/intents/port.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const HASHES = ['EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k', '4uQeVj5tqViQh7yWWGStvkEG1Zmhx6uasJtWCJziofM', 'GHtXQBsoZHVnNFa9YevAzFr17DJjgHXk3ycTKD5xD3Zi'];

/** A chain that lands what it is sent unless told to drop it; counts calls per method. */
class ScriptedChain implements JsonRpcTransport {
  readonly description = 'scripted';
  readonly calls: Record<string, number> = {};
  /** signature -> slot it landed in */
  readonly landed = new Map<string, number>();
  /** the bytes of every send */
  readonly wires: Buffer[] = [];
  /** sends of each signature received */
  readonly sendsOf = new Map<string, number>();
  /** drops the first n sends of every signature */
  dropFirst = 0;
  /** drops every send of a signature over this blockhash */
  dropHash: string | null = null;
  height = 10;
  hashIndex = 0;
  rateLimitedSends = 0;
  down = false;
  alreadyProcessed = false;
  /** statuses answer null while set (a lagging RPC node) */
  hideStatuses = false;
  /** refuses this many calls (the last one a lost answer instead) */
  refusing = 0;

  async exchange(body: object): Promise<unknown> {
    const { id, method, params } = body as { id: number; method: string; params: unknown[] };
    this.calls[method] = (this.calls[method] ?? 0) + 1;
    await sleep(5);
    if (this.down) throw new ChainUnavailable('scripted chain is down');
    if (this.refusing > 0) {
      this.refusing--;
      throw this.refusing === 0 && method === 'sendTransaction' ? new ChainUnavailable('reset') : new ChainUnreachable('refused');
    }
    const result = (() => {
      switch (method) {
        case 'getLatestBlockhash':
          return { context: { slot: 1 }, value: { blockhash: HASHES[this.hashIndex], lastValidBlockHeight: this.height + 5 } };
        case 'getBlockHeight':
          return this.height;
        case 'simulateTransaction':
          return { context: { slot: 3 }, value: { err: null, logs: [], unitsConsumed: 10_000 } };
        case 'getRecentPrioritizationFees':
          return [0, 100, 5_000, 200].map((prioritizationFee, slot) => ({ slot, prioritizationFee }));
        case 'sendTransaction': {
          if (this.rateLimitedSends > 0) {
            this.rateLimitedSends--;
            throw new RateLimited('scripted', 50);
          }
          const wire = Buffer.from(params[0] as string, 'base64');
          this.wires.push(wire);
          const sig = signatureOf(wire);
          if (this.alreadyProcessed) {
            this.landed.set(sig, 3);
            return { error: { code: -32002, message: 'already processed', data: { err: 'AlreadyProcessed', logs: [] } } };
          }
          const n = (this.sendsOf.get(sig) ?? 0) + 1;
          this.sendsOf.set(sig, n);
          if (n > this.dropFirst && !(this.dropHash && wire.includes(blockhashBytes(this.dropHash)))) this.landed.set(sig, 3);
          return sig;
        }
        case 'getSignatureStatuses':
          return {
            context: { slot: 3 },
            value: (params[0] as string[]).map((s) =>
              this.landed.has(s) && !this.hideStatuses ? { slot: this.landed.get(s), err: null, confirmationStatus: 'confirmed' } : null,
            ),
          };
        default:
          throw new Error(`unexpected ${method}`);
      }
    })();
    if (typeof result === 'object' && result !== null && 'error' in result) return { jsonrpc: '2.0', id, ...result };
    return { jsonrpc: '2.0', id, result };
  }
}

/** The first signature of a wire transaction (after the compact-u16 count of 1). */
const signatureOf = (wire: Buffer): string => getBase58Decoder().decode(wire.subarray(1, 65));
const blockhashBytes = (hash: string): Buffer => Buffer.from(getBase58Encoder().encode(hash));

const payer = Keypair.generate();
const transfer = () => [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 1 })];
const sender = (chain: ScriptedChain, o: Partial<ConstructorParameters<typeof TxSender>[1]> = {}) =>
  new TxSender(new RpcClient(chain), { confirmTimeoutMs: 2_000, pollMs: 10, blockhashTtlMs: 2_000, resendMs: 40, ...o });

describe('TxSender (the landing engine)', () => {
  it('confirms a signature sent elsewhere (an airdrop) once the chain says so, through unanswered polls, and times out on one it never sees', async () => {
    const chain = new ScriptedChain();
    const s = sender(chain, { confirmTimeoutMs: 300 });
    const airdrop = 'airdrop-signature';
    chain.hideStatuses = true;
    setTimeout(() => (chain.hideStatuses = false), 60);
    setTimeout(() => (chain.refusing = 2), 10);
    chain.landed.set(airdrop, 7);
    await expect(s.confirm('faucet top-up', airdrop)).resolves.toEqual({ slot: 7, err: null });
    expect(chain.calls.getSignatureStatuses).toBeGreaterThan(1);
    await expect(s.confirm('faucet top-up', 'never-landed')).rejects.toThrow(/never-landed not confirmed within 300 ms/);
  });

  it('twenty concurrent transactions: one blockhash fetch, twenty sends, a few batched status polls', async () => {
    const chain = new ScriptedChain();
    const s = sender(chain, { resendMs: 10_000 });
    const sigs = await Promise.all(Array.from({ length: 20 }, () => s.sendAndConfirm('transfer', transfer(), payer)));
    expect(new Set(sigs).size).toBe(20);
    expect(chain.calls).toMatchObject({ getLatestBlockhash: 1, sendTransaction: 20 });
    expect(chain.calls.getSignatureStatuses).toBeLessThanOrEqual(3);
    expect(s.stats).toMatchObject({ landed: 20, sends: 20, resigned: 0 });
  });

  it('dropped bytes are sent again unchanged until they land: one signature, never a second signing', async () => {
    const chain = new ScriptedChain();
    chain.dropFirst = 3;
    const s = sender(chain);
    const signed: string[] = [];
    const landing = s.submit('transfer', transfer(), payer, [], { onSigned: (sig) => signed.push(sig) });
    const { signature } = await landing.outcome;
    expect(signed).toEqual([signature]);
    expect(chain.sendsOf.get(signature)).toBe(4);
    expect(chain.calls.getLatestBlockhash).toBe(1);
    expect(s.stats).toMatchObject({ landed: 1, sends: 4, resigned: 0, expired: 0 });
    expect(s.pending()).toEqual([]);
  });

  it('bytes whose blockhash expired unlanded are signed again over a new blockhash, and only then', async () => {
    const chain = new ScriptedChain();
    chain.dropHash = HASHES[0] as string;
    const s = sender(chain, { blockhashTtlMs: 0 });
    const signed: string[] = [];
    const outcome = s.submit('transfer', transfer(), payer, [], { onSigned: (sig) => signed.push(sig) }).outcome;
    await sleep(200);
    // still valid: resent, never re-signed
    expect(signed).toHaveLength(1);
    expect(chain.sendsOf.get(signed[0] as string)).toBeGreaterThan(2);
    chain.hashIndex = 1;
    chain.height += 6; // past lastValidBlockHeight
    const { signature } = await outcome;
    expect(signed).toHaveLength(2);
    expect(signature).toBe(signed[1]);
    expect(s.stats).toMatchObject({ landed: 1, expired: 1, resigned: 1 });
  });

  it('an intent that expires unlanded on every signing fails after the last one', async () => {
    const chain = new ScriptedChain();
    chain.dropFirst = 1_000;
    const s = sender(chain, { blockhashTtlMs: 0, maxSigns: 2 });
    const outcome = s.land('transfer', transfer(), payer);
    const bump = setInterval(() => {
      chain.height += 10;
      chain.hashIndex = (chain.hashIndex + 1) % HASHES.length;
    }, 60);
    try {
      await expect(outcome).rejects.toThrow(/2 signings expired unlanded/);
    } finally {
      clearInterval(bump);
    }
    expect(s.stats).toMatchObject({ landed: 0, expired: 2, resigned: 1 });
  });

  it('a 429 on the send is waited out, then the same bytes go again', async () => {
    const chain = new ScriptedChain();
    chain.rateLimitedSends = 2;
    const s = sender(chain);
    const { signature } = await s.land('transfer', transfer(), payer);
    expect(chain.sendsOf.get(signature)).toBe(1);
    expect(chain.calls.sendTransaction).toBe(3);
  });

  it('AlreadyProcessed on the first send is the same bytes already taken: success', async () => {
    const chain = new ScriptedChain();
    chain.alreadyProcessed = true;
    const s = sender(chain);
    await expect(s.land('transfer', transfer(), payer)).resolves.toMatchObject({ slot: 3 });
  });

  it('a chain that answers nothing ends in ChainUnavailable', async () => {
    const chain = new ScriptedChain();
    chain.down = true;
    const s = sender(chain, { confirmTimeoutMs: 150 });
    await expect(s.land('transfer', transfer(), payer)).rejects.toBeInstanceOf(ChainUnavailable);
  });

  it('a send whose answer was lost is tracked, and lands when the chain is back', async () => {
    const chain = new ScriptedChain();
    const s = sender(chain, { confirmTimeoutMs: 5_000 });
    await s.land('warm', transfer(), payer); // the blockhash is cached
    chain.down = true;
    const outcome = s.land('transfer', transfer(), payer);
    await sleep(100);
    chain.down = false;
    await expect(outcome).resolves.toMatchObject({ slot: 3 });
  });

  it('an intent sent under a key is recorded before its bytes leave and dropped once it landed', async () => {
    const chain = new ScriptedChain();
    chain.dropFirst = 2;
    const intents = createMemoryIntentStore();
    const s = sender(chain, { intents });
    const recordedAtSend: string[] = [];
    const original = chain.exchange.bind(chain);
    chain.exchange = async (body) => {
      if ((body as { method: string }).method === 'sendTransaction') recordedAtSend.push(...(await intents.list()).map((i) => i.signature));
      return original(body);
    };
    const landing = s.submit('transfer', transfer(), payer, [], { key: 'place_bet:x' });
    const { signature } = await landing.outcome;
    expect(recordedAtSend).toEqual([signature, signature, signature]);
    await sleep(10);
    expect(await intents.list()).toEqual([]);
  });

  it('a recorded intent is resumed after a restart: the same bytes again until they land, never signed anew', async () => {
    const chain = new ScriptedChain();
    chain.dropFirst = 1_000;
    const intents = createMemoryIntentStore();
    const before = sender(chain, { intents });
    void before.submit('place_bet', transfer(), payer, [], { key: 'place_bet:y' }).outcome.catch(() => undefined);
    await sleep(30);
    const [recorded] = await intents.list();
    if (!recorded) throw new Error('not recorded');
    // the process dies; a new one resumes what was recorded
    chain.dropFirst = 0;
    chain.sendsOf.clear();
    chain.landed.clear();
    const after = sender(chain, { intents });
    const { signature } = await after.resume(recorded).outcome;
    expect(signature).toBe(recorded.signature);
    expect(chain.calls.getLatestBlockhash).toBe(1); // only the first run fetched one: nothing signed anew
    await sleep(10);
    expect(await intents.list()).toEqual([]);
  });

  it('a resumed intent whose blockhash expired unlanded ends, and is dropped from the store', async () => {
    const chain = new ScriptedChain();
    chain.dropFirst = 1_000;
    const intents = createMemoryIntentStore();
    await intents.put({
      key: 'place_bet:z',
      what: 'place_bet',
      signature: 'gone',
      wire: Buffer.alloc(100).toString('base64'),
      lastValidBlockHeight: 5,
      since: Date.now(),
    });
    const [recorded] = await intents.list();
    const s = sender(chain, { intents });
    await expect(s.resume(recorded as PendingIntent).outcome).rejects.toThrow(/resumed after a restart; its blockhash expired unlanded/);
    await sleep(10);
    expect(await intents.list()).toEqual([]);
  });

  it('on a real cluster: a unit limit from one simulation per kind (x 1.2) and a priority fee from recent fees, capped', async () => {
    const chain = new ScriptedChain();
    const s = sender(chain, { budget: { maxPrice: 1_000 } });
    await s.land('transfer', transfer(), payer);
    await s.land('transfer', transfer(), payer);
    expect(chain.calls.simulateTransaction).toBe(1);
    expect(chain.calls.getRecentPrioritizationFees).toBe(1);
    const budgetProgram = getBase58Encoder().encode('ComputeBudget111111111111111111111111111111');
    const wire = chain.wires[1] as Buffer;
    expect(wire.includes(Buffer.from(budgetProgram))).toBe(true);
    // SetComputeUnitLimit (2) of (10,000 + 300) x 1.2 units; SetComputeUnitPrice (3) of min(p75 of recent fees = 5,000, cap 1,000)
    const limit = Buffer.alloc(5);
    limit.writeUInt8(2, 0);
    limit.writeUInt32LE(12_360, 1);
    const price = Buffer.alloc(9);
    price.writeUInt8(3, 0);
    price.writeBigUInt64LE(1_000n, 1);
    expect(wire.includes(limit)).toBe(true);
    expect(wire.includes(price)).toBe(true);
    expect(s.stats.priorityFeeLamports).toBe(2 * Math.ceil((1_000 * 12_360) / 1_000_000));
  });

  it('a chain without prioritization fees or simulation: the transaction goes without a budget', async () => {
    const chain = new ScriptedChain();
    const original = chain.exchange.bind(chain);
    chain.exchange = async (body) => {
      const method = (body as { method: string }).method;
      if (method === 'simulateTransaction' || method === 'getRecentPrioritizationFees') throw new ChainUnavailable('no such method here');
      return original(body);
    };
    const s = sender(chain, { budget: { maxPrice: 1_000 } });
    await expect(s.land('transfer', transfer(), payer)).resolves.toMatchObject({ slot: 3 });
    expect((chain.wires[0] as Buffer).includes(Buffer.from(getBase58Encoder().encode('ComputeBudget111111111111111111111111111111')))).toBe(false);
  });

  it('a send whose answer was lost to a chain that then refuses connections: unreachable is known at once, and it still lands later', async () => {
    const chain = new ScriptedChain();
    const s = sender(chain, { confirmTimeoutMs: 5_000 });
    await s.land('warm', transfer(), payer);
    chain.refusing = 1; // the send's answer is lost
    const landing = s.submit('transfer', transfer(), payer);
    await sleep(20);
    chain.refusing = 1_000_000; // then every call is refused
    await expect.poll(() => landing.unreachable(), { timeout: 2_000, interval: 10 }).toBe(true);
    expect(landing.heard()).toBe(false);
    chain.refusing = 0;
    await expect(landing.outcome).resolves.toMatchObject({ slot: 3 });
    expect(landing.unreachable()).toBe(false);
  });

  it('an intent whose effect is seen on chain is not sent again while its status lags; it lands when the status shows', async () => {
    const chain = new ScriptedChain();
    chain.hideStatuses = true;
    const s = sender(chain);
    let seen = false;
    const landing = s.submit('place_bet', transfer(), payer, [], { seen: () => seen });
    await sleep(100); // two resend periods
    const sendsBefore = chain.calls.sendTransaction ?? 0;
    expect(sendsBefore).toBeGreaterThan(1); // not seen yet: resent
    seen = true; // the mirror holds the account it creates
    await sleep(150);
    expect(chain.calls.sendTransaction).toBe(sendsBefore);
    chain.hideStatuses = false;
    await expect(landing.outcome).resolves.toMatchObject({ slot: 3 });
  });
});
