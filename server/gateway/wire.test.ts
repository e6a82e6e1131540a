import { Keypair } from '@solana/web3.js';
import { getBase58Decoder } from '@solana/kit';
import { describe, expect, it } from 'vitest';
import { HttpError } from '../http/reply.ts';
import { assertStakeWithin, isPublicKey, parseBetBodyA, parseBetBodyB, parseSequencedEvent } from './wire.ts';

const address = Keypair.generate().publicKey.toBase58();

/** Runs `fn`, expecting HttpError 400; returns its `error` text. */
function error400(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(400);
    const text = (err as HttpError).body.error;
    expect(typeof text).toBe('string');
    return text as string;
  }
  throw new Error('expected HttpError 400');
}

describe('Profile A POST /bet body', () => {
  it('accepts amountUnits as a string or a number and side in any case', () => {
    expect(parseBetBodyA({ address, side: 'UP', amountUnits: '100000000' })).toEqual({ address, side: 'UP', amountUnits: 100_000_000n });
    expect(parseBetBodyA({ address, side: 'down', amountUnits: 250_000_000 })).toEqual({ address, side: 'DOWN', amountUnits: 250_000_000n });
    expect(parseBetBodyA({ address, side: 'uP', amountUnits: '99999999999999999999' }).amountUnits).toBe(99_999_999_999_999_999_999n);
  });

  it('answers `amount` instead of `amountUnits` with the spec wording', () => {
    expect(error400(() => parseBetBodyA({ address, side: 'UP', amount: '100000000' }))).toMatch(/amountUnits must be a positive integer in token base units/);
  });

  it.each([undefined, null, 0, -5, 1.5, '0', '-1', '1.5', '1e8', '', ' 100', 'abc', Number.MAX_SAFE_INTEGER + 2, true, [1], { n: 1 }])(
    'refuses amountUnits %j',
    (amountUnits) => {
      expect(error400(() => parseBetBodyA({ address, side: 'UP', amountUnits }))).toMatch(/amountUnits must be a positive integer in token base units/);
    },
  );

  it.each([undefined, '', 'SIDEWAYS', 0, 1, 'UPP'])('refuses side %j', (side) => {
    expect(error400(() => parseBetBodyA({ address, side, amountUnits: '100000000' }))).toBe('side must be UP or DOWN');
  });

  it.each([undefined, 5, '', 'not-an-address', '0OIl'.repeat(10)])('refuses address %j', (a) => {
    expect(error400(() => parseBetBodyA({ address: a, side: 'UP', amountUnits: '100000000' }))).toMatch(/address/);
  });

  it.each([null, [], 'x', 7])('refuses a body that is not an object: %j', (body) => {
    expect(error400(() => parseBetBodyA(body))).toMatch(/JSON object/);
  });

  it('takes an intent as {signature: base58 of 64 bytes, validUntil: unix seconds} (docs/gateway-api.md#bet-intents)', () => {
    const bytes = new Uint8Array(64).map((_, i) => i + 1);
    const signature = getBase58Decoder().decode(bytes);
    expect(parseBetBodyA({ address, side: 'UP', amountUnits: '1', intent: { signature, validUntil: 1_795_000_000 } })).toEqual({
      address,
      side: 'UP',
      amountUnits: 1n,
      intent: { signature: bytes, validUntil: 1_795_000_000n },
    });
    expect(parseBetBodyA({ address, side: 'UP', amountUnits: '1', intent: { signature, validUntil: '1795000000' } }).intent?.validUntil).toBe(1_795_000_000n);
    expect(parseBetBodyA({ address, side: 'UP', amountUnits: '1', intent: null })).toEqual({ address, side: 'UP', amountUnits: 1n });
  });

  it.each([
    'x',
    [],
    {},
    { signature: 'not-base58-0OIl', validUntil: 1 },
    { signature: getBase58Decoder().decode(new Uint8Array(63).fill(1)), validUntil: 1 },
    { signature: getBase58Decoder().decode(new Uint8Array(64).fill(1)) },
    { signature: getBase58Decoder().decode(new Uint8Array(64).fill(1)), validUntil: -1 },
    { signature: getBase58Decoder().decode(new Uint8Array(64).fill(1)), validUntil: '9223372036854775808' },
  ])('refuses intent %j', (intent) => {
    expect(error400(() => parseBetBodyA({ address, side: 'UP', amountUnits: '1', intent }))).toMatch(/^intent must be/);
  });

  it('checks the stake range inclusively', () => {
    expect(() => assertStakeWithin(100n, 100n, 200n)).not.toThrow();
    expect(() => assertStakeWithin(200n, 100n, 200n)).not.toThrow();
    expect(error400(() => assertStakeWithin(99n, 100n, 200n))).toMatch(/between 100 and 200/);
    expect(error400(() => assertStakeWithin(201n, 100n, 200n))).toMatch(/between 100 and 200/);
  });
});

describe('Profile B POST /bet body', () => {
  it.each(['UP', 'up', 'Up', '0', 0])('%j is UP', (side) => {
    expect(parseBetBodyB({ side, address: 'ignored', amountUnits: 'ignored' })).toEqual({ side: 'UP' });
  });
  it.each(['DOWN', 'down', 'Down', '1', 1])('%j is DOWN', (side) => {
    expect(parseBetBodyB({ side })).toEqual({ side: 'DOWN' });
  });
  it.each([undefined, null, '', 2, '2', 'LEFT', 'uP', true])('refuses %j with the spec wording', (side) => {
    expect(error400(() => parseBetBodyB({ side }))).toBe('side must be 0/UP or 1/DOWN');
  });
  it('refuses a missing body', () => {
    expect(error400(() => parseBetBodyB(undefined))).toBe('side must be 0/UP or 1/DOWN');
  });
});

describe('events', () => {
  it('parses each event type with its seq', () => {
    const events = [
      { type: 'price', symbol: 'solusdt', price: '150.12345678', ts: 1_763_700_000_000, seq: 1 },
      { type: 'bet_open', id: '7', bettor: address, side: 'UP', amountUnits: '100000000', entryPrice: 15_012_345_678, expireTime: 1_763_700_015, seq: 2 },
      { type: 'bet_closed', id: '7', bettor: address, exitPrice: 15_012_345_679, status: 1, statusName: 'payout_done', seq: 3 },
      {
        type: 'bet_replay',
        id: '8',
        prevId: '7',
        bettor: address,
        side: 'DOWN',
        amountUnits: '100000000',
        entryPrice: 1,
        expireTime: 2,
        replayCount: 1,
        seq: 4,
      },
    ];
    for (const e of events) expect(parseSequencedEvent(e)).toEqual(e);
  });

  it('refuses extra fields, wrong price format, mismatched statusName and missing seq', () => {
    expect(() => parseSequencedEvent({ type: 'price', symbol: 'solusdt', price: '150.1', ts: 1, seq: 1 })).toThrow();
    expect(() => parseSequencedEvent({ type: 'price', symbol: 'solusdt', price: '150.10000000', ts: 1, seq: 1, extra: 1 })).toThrow();
    expect(() => parseSequencedEvent({ type: 'price', symbol: 'solusdt', price: '150.10000000', ts: 1 })).toThrow();
    expect(() => parseSequencedEvent({ type: 'bet_closed', id: '7', bettor: address, exitPrice: 1, status: 1, statusName: 'refunded', seq: 3 })).toThrow(
      /statusName/,
    );
    expect(() => parseSequencedEvent({ type: 'nope', seq: 1 })).toThrow();
  });
});

it('recognises base58 public keys', () => {
  expect(isPublicKey(address)).toBe(true);
  expect(isPublicKey('11111111111111111111111111111111')).toBe(true);
  expect(isPublicKey('1111111111111111111111111111111')).toBe(false);
  expect(isPublicKey(`${address}1`)).toBe(false);
});
