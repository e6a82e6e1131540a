import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodePriceTick, encodePriceTick } from './messages.ts';
import { loadPriceSigner, memorySeqStore, PriceSigner, priceSignerKeyPath } from './price-signer.ts';
import { Keypair } from '@solana/web3.js';
import { decodeTickMessage, encodeTickMessage, priceE8Of, TICK_MESSAGE_LEN } from './tick-message.ts';
import { verifyTick } from './tick-verify.ts';
import { tempDir } from '../../test/support/temp-dir.ts';

const root = tempDir('price-signer-');
afterAll(() => rmSync(root, { recursive: true, force: true }));
const T = 1_763_700_000_000;

describe('tick message', () => {
  it('is 48 fixed bytes: tag, feed id, seq, ts, price x 1e8', () => {
    const m = encodeTickMessage({ seq: 7n, ts: T, priceE8: 15_012_345_678n });
    expect(m).toHaveLength(TICK_MESSAGE_LEN);
    expect(m.subarray(0, 24).toString('latin1')).toBe('UPDOWN_TICK_V1\0\0solusdt\0');
    expect(m.readBigUInt64LE(24)).toBe(7n);
    expect(m.readBigInt64LE(32)).toBe(BigInt(T));
    expect(m.readBigUInt64LE(40)).toBe(15_012_345_678n);
    expect(decodeTickMessage(m)).toEqual({ seq: 7n, ts: T, priceE8: 15_012_345_678n });
    expect(decodeTickMessage(encodeTickMessage({ seq: 7n, ts: T, priceE8: 1n }, Buffer.alloc(16)))).toBeUndefined();
  });

  it('takes prices with at most 8 fraction digits, exactly', () => {
    expect(priceE8Of('150.12345678')).toBe(15_012_345_678n);
    expect(priceE8Of('150')).toBe(15_000_000_000n);
    expect(priceE8Of('150.123456789')).toBeUndefined();
    expect(priceE8Of('0.00000000')).toBeUndefined();
    expect(priceE8Of('1e3')).toBeUndefined();
  });
});

describe('price signer', () => {
  it('signs each tick with the next sequence number; the signature verifies and breaks on any change', () => {
    const signer = new PriceSigner(Keypair.generate(), memorySeqStore(5n));
    const a = signer.sign({ symbol: 'solusdt', price: '150.1', ts: T });
    const b = signer.sign({ symbol: 'solusdt', price: '150.2', ts: T + 500 });
    expect(a.price).toBe('150.10000000');
    expect([a.signed?.seq, b.signed?.seq]).toEqual([5, 6]);
    expect(a.signed?.signer).toBe(signer.publicKey);
    expect(verifyTick(a)).toBe('verified');
    expect(verifyTick(b)).toBe('verified');
    expect(verifyTick({ ...a, price: '150.10000001' })).toBe('forged');
    expect(verifyTick({ ...a, ts: T + 1 })).toBe('forged');
    expect(verifyTick({ ...a, signed: { ...a.signed!, seq: 6 } })).toBe('forged');
    expect(verifyTick({ ...a, signed: { ...a.signed!, signer: Keypair.generate().publicKey.toBase58() } })).toBe('forged');
    expect(verifyTick({ symbol: 'solusdt', price: '150', ts: T })).toBe('unsigned');
  });

  it('keeps its key in DATA_DIR and continues its sequence across restarts', () => {
    const dir = join(root, 'restart');
    const first = loadPriceSigner({ dataDir: dir });
    for (let i = 0; i < 3; i++) first.sign({ symbol: 'solusdt', price: '150', ts: T + i });
    expect(JSON.parse(readFileSync(priceSignerKeyPath(dir), 'utf8'))).toHaveLength(64);
    const second = loadPriceSigner({ dataDir: dir });
    expect(second.publicKey).toBe(first.publicKey);
    expect(second.sign({ symbol: 'solusdt', price: '150', ts: T + 3 }).signed?.seq).toBe(4); // 1, 2, 3 before the restart
  });

  it('takes its key from env instead, with a sequence of its own', () => {
    const key = Keypair.generate();
    const signer = loadPriceSigner({ dataDir: join(root, 'env'), secret: JSON.stringify(Array.from(key.secretKey)) });
    expect(signer.publicKey).toBe(key.publicKey.toBase58());
    expect(signer.sign({ symbol: 'solusdt', price: '150', ts: T }).signed?.seq).toBe(1); // a signer's first tick is 1: the contract's 0 means none used yet
  });
});

describe('signed ticks on the wire', () => {
  it('carry seq, signature and signer next to the old fields; an unsigned tick still parses', () => {
    const signer = new PriceSigner(Keypair.generate(), memorySeqStore());
    const tick = signer.sign({ symbol: 'solusdt', price: '150.5', ts: T });
    const wire = JSON.parse(encodePriceTick(tick)) as Record<string, unknown>;
    expect(Object.keys(wire)).toEqual(['symbol', 'price', 'ts', 'seq', 'signature', 'signer']);
    const decoded = decodePriceTick(encodePriceTick(tick));
    expect(decoded).toEqual({ ok: true, value: tick });
    expect(decoded.ok && verifyTick(decoded.value)).toBe('verified');
    expect(decodePriceTick('{"symbol":"solusdt","price":"150","ts":1}')).toEqual({ ok: true, value: { symbol: 'solusdt', price: '150', ts: 1 } });
    const partial = decodePriceTick(JSON.stringify({ ...wire, signer: undefined }));
    expect(partial.ok).toBe(false);
  });
});
