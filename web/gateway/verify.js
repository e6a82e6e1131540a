// Checks a settled bet's signed ticks in this browser (WebCrypto Ed25519), as `npm run ops -- verify`
// does from the chain (docs/operations.md#checking-settled-bets): the entry tick is at the bet's entry
// price, the exit pair n, n+1 of one signer straddles the expiry with n at most 30 s before it and at
// the exit price, every signature verifies against its signer's key, and the outcome follows from the
// prices. The gateway only hands the ticks over; it cannot make a tick the signer did not sign.

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const DOMAIN = 'UPDOWN_TICK_V1';
const FEED_ID = 'solusdt';
const MAX_EXIT_TICK_AGE_MS = 30_000;

/** The base58 text of some bytes (a signature, a key). */
export function base58Of(bytes) {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let text = '';
  while (n > 0n) {
    text = ALPHABET[Number(n % 58n)] + text;
    n /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    text = '1' + text;
  }
  return text;
}

/** The bytes of a base58 string. */
export function base58(text) {
  let n = 0n;
  for (const c of text) {
    const d = ALPHABET.indexOf(c);
    if (d < 0) throw new Error(`not base58: ${c}`);
    n = n * 58n + BigInt(d);
  }
  const bytes = [];
  while (n > 0n) {
    bytes.unshift(Number(n & 0xffn));
    n >>= 8n;
  }
  for (const c of text) {
    if (c !== '1') break;
    bytes.unshift(0);
  }
  return Uint8Array.from(bytes);
}

const base64 = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/** The 48-byte message a price signer signs for a tick (domain tag, feed id, seq, ts, price x 1e8). */
export function tickMessage(t) {
  const bytes = new Uint8Array(48);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < DOMAIN.length; i++) bytes[i] = DOMAIN.charCodeAt(i);
  for (let i = 0; i < FEED_ID.length; i++) bytes[16 + i] = FEED_ID.charCodeAt(i);
  view.setBigUint64(24, BigInt(t.seq), true);
  view.setBigInt64(32, BigInt(t.ts), true);
  view.setBigUint64(40, BigInt(t.price), true);
  return bytes;
}

/** Whether a signed tick's signature is its signer's. */
async function signed(t) {
  try {
    const key = await crypto.subtle.importKey('raw', base58(t.signer), { name: 'Ed25519' }, false, ['verify']);
    return await crypto.subtle.verify({ name: 'Ed25519' }, key, base64(t.signature), tickMessage(t));
  } catch {
    return false;
  }
}

/** The status the prices give: 1 the bettor won, 2 the house, 3 a tie refunds. */
function ruled(bet) {
  const entry = BigInt(bet.entryPrice);
  const exit = BigInt(bet.exitPrice);
  if (exit === entry) return 'refunded';
  return exit > entry === (bet.side === 'UP') ? 'payout_done' : 'house_won';
}

/**
 * Checks `bet` (a settled bet with `evidence.signed`). Resolves `{ ok, why, signer }`, or null when
 * the bet carries no signed ticks (an unsigned price feed) or is not settled.
 */
export async function verifyBet(bet) {
  const s = bet.evidence?.signed;
  if (!s?.entry || !bet.statusName || bet.statusName === 'open') return null;
  const fail = (why) => ({ ok: false, why, signer: s.entry.signer });
  if (String(s.entry.price) !== String(bet.entryPrice)) return fail('the entry tick is not at the entry price');
  if (!(await signed(s.entry))) return fail('the entry tick signature does not verify');
  if (!s.exit) {
    return bet.statusName === 'refunded' ? { ok: true, why: 'refunded at the entry price', signer: s.entry.signer } : fail('no signed exit pair');
  }
  const [n, next] = s.exit;
  const expiryMs = Number(bet.expireTime) * 1000;
  if (n.signer !== next.signer || next.seq !== n.seq + 1) return fail('the exit ticks are not consecutive ticks of one signer');
  if (!(n.ts <= expiryMs && expiryMs < next.ts)) return fail('the exit ticks do not straddle the expiry');
  if (expiryMs - n.ts > MAX_EXIT_TICK_AGE_MS) return fail('the exit tick is more than 30 s before the expiry');
  if (String(n.price) !== String(bet.exitPrice)) return fail('the exit tick is not at the exit price');
  if (!(await signed(n)) || !(await signed(next))) return fail('an exit tick signature does not verify');
  if (ruled(bet) !== bet.statusName) return fail('the outcome does not follow from the prices');
  return { ok: true, why: 'entry tick, exit pair and outcome checked', signer: n.signer };
}
