import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ApiKeyRecord } from '../../adapters/store/api-keys/port.ts';
import { signatureValid, signedPayload } from './signature.ts';

// Binance's documented example key (rest-api: SIGNED endpoint examples); not a real credential
const DOC_KEY: ApiKeyRecord = {
  apiKey: 'vmPUZE6mv9SD5VNHk4HlWFsOr6aKE2zvsw0MuIgwCIPy6utIco14y7Ju91duEh8A',
  accountId: 'a',
  type: 'HMAC_SHA256',
  secret: 'NhqPtmdSJYdKjVHjA7PZj4Mge3R5YNiP1e3UZjInClVN65XAbvqqM6A7H5fATj0j',
  label: null,
  createdAt: '2026-01-01T00:00:00.000Z',
};
const PARAMS = 'symbol=LTCBTC&side=BUY&type=LIMIT&timeInForce=GTC&quantity=1&price=0.1&recvWindow=5000&timestamp=1499827319559';

describe('request signatures', () => {
  it("checks HMAC-SHA256 over the query, the body, or the query followed by the body (Binance's examples)", () => {
    const sig = 'c8db56825ae71d6d79447849e617115f4a920fa2acdcab2b053c4b2838bd6b71';
    expect(signatureValid(DOC_KEY, signedPayload(`${PARAMS}&signature=${sig}`, ''), sig)).toBe(true);
    expect(signatureValid(DOC_KEY, signedPayload('', `${PARAMS}&signature=${sig}`), sig.toUpperCase())).toBe(true);
    const mixed = '0fd168b8ddb4876a0358a8d14d0c9f3da0e9b20c5d52b2a00fcf7d1c602f9a77';
    const payload = signedPayload(
      'symbol=LTCBTC&side=BUY&type=LIMIT&timeInForce=GTC',
      `quantity=1&price=0.1&recvWindow=5000&timestamp=1499827319559&signature=${mixed}`,
    );
    expect(payload).toBe('symbol=LTCBTC&side=BUY&type=LIMIT&timeInForce=GTCquantity=1&price=0.1&recvWindow=5000&timestamp=1499827319559');
    expect(signatureValid(DOC_KEY, payload, mixed)).toBe(true);
    expect(signatureValid(DOC_KEY, payload, sig)).toBe(false);
    expect(signatureValid(DOC_KEY, payload, 'zz')).toBe(false);
    expect(signatureValid({ ...DOC_KEY, secret: 'other' }, payload, mixed)).toBe(false);
  });

  it('checks Ed25519 signatures in base64 with the registered public key only', () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const other = generateKeyPairSync('ed25519');
    const key: ApiKeyRecord = { ...DOC_KEY, type: 'ED25519', publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
    delete key.secret;
    const good = sign(null, Buffer.from(PARAMS), privateKey).toString('base64');
    expect(signatureValid(key, PARAMS, good)).toBe(true);
    expect(signatureValid(key, `${PARAMS}0`, good)).toBe(false);
    expect(signatureValid(key, PARAMS, sign(null, Buffer.from(PARAMS), other.privateKey).toString('base64'))).toBe(false);
    expect(signatureValid(key, PARAMS, 'not base64!')).toBe(false);
    expect(signatureValid(key, PARAMS, Buffer.alloc(10).toString('base64'))).toBe(false);
  });
});
