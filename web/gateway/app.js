// The gateway's live page: SOL price chart, the bet window's countdown, a custodial test wallet or
// the player's own browser wallet (wallet.js), UP/DOWN bets, the player's history with evidence,
// and the event feed (resumed after a drop).
import { lineChart } from '/ui/shared/chart.js';
import { byTestId, clock, el, errorText, request } from '/ui/shared/dom.js';
import { BetHistory, price8, tokens } from '/ui/history.js';
import { eventStream } from '/ui/stream.js';
import { walletPath } from '/ui/wallet.js';

const config = (await request('GET', '/ui/config.json')).body ?? {};
const profile = config.profile ?? 'A';
const testMode = config.mode === 'test';
const WALLET_KEY = 'sol-updown.wallet';

const ui = {
  price: byTestId('price'),
  priceTime: byTestId('price-time'),
  connection: byTestId('connection'),
  countdown: byTestId('countdown'),
  window: byTestId('window'),
  wallet: byTestId('wallet'),
  balance: byTestId('balance'),
  amount: byTestId('amount'),
  status: byTestId('bet-status'),
  events: byTestId('events'),
  newWallet: byTestId('new-wallet'),
  faucet: byTestId('faucet'),
  betUp: byTestId('bet-up'),
  betDown: byTestId('bet-down'),
};
byTestId('mode').textContent = `profile ${profile} · ${testMode ? 'test mode' : 'prod mode'}`;

const chart = lineChart(byTestId('price-chart'), { precision: 4 });
const history = new BetHistory({ onChange: () => void refreshBalance() });
let contract = null;
let address = null;

const say = (text, error = false) => {
  ui.status.textContent = text;
  ui.status.classList.toggle('error', error);
};

// Profile A: a browser wallet (wallet standard) may bet for its own account through the Solana Action
const wallets = profile === 'A' ? walletPath({ row: byTestId('wallet-row'), say, onAccount: (a) => useAddress(a, false) }) : null;

function showPrice(p) {
  ui.price.textContent = p.price;
  ui.price.dataset.ts = String(p.ts);
  ui.priceTime.textContent = clock(Number(p.ts));
  chart.push(Number(p.ts), Number(p.price));
}

async function loadContract() {
  const r = await request('GET', '/api/state');
  if (r.status !== 200) {
    ui.window.textContent = `contract: ${errorText(r)}`;
    return;
  }
  contract = r.body;
  ui.window.textContent = `${contract.expirySeconds} s window · stake ${tokens(contract.minAmount)}–${tokens(contract.maxAmount)} tokens · pays ${Number(contract.multiplierBps) / 10000}x`;
  if (!ui.amount.value) ui.amount.value = tokens(contract.minAmount);
  if (profile === 'B' && contract.bettor) await useAddress(contract.bettor);
}

/** Follows `next`: its balance, its history, bets for it; a custodial address is remembered for the next visit. */
async function useAddress(next, remember = true) {
  address = next;
  ui.wallet.textContent = next;
  ui.wallet.dataset.address = next;
  ui.faucet.disabled = !next;
  for (const b of [ui.betUp, ui.betDown]) b.disabled = !next;
  if (profile === 'A' && next && remember) localStorage.setItem(WALLET_KEY, next);
  await Promise.all([refreshBalance(), history.follow(next)]);
}

async function refreshBalance() {
  if (!address) return;
  const r = await request('GET', `/api/balance/${encodeURIComponent(address)}`);
  if (r.status === 200) {
    ui.balance.textContent = `${r.body.tokenHuman} tokens · ${r.body.sol} SOL`;
    ui.balance.dataset.tokenUnits = r.body.tokenUnits;
  } else ui.balance.textContent = errorText(r);
}

/** Human token amount ("100", "12.5") to base units, or null. */
function unitsOf(text) {
  const m = /^\s*(\d+)(?:\.(\d{0,6}))?\s*$/.exec(text);
  if (!m) return null;
  return (BigInt(m[1]) * 1_000_000n + BigInt((m[2] ?? '').padEnd(6, '0') || '0')).toString();
}

async function bet(side) {
  if (!address) return say('make a wallet first', true);
  for (const b of [ui.betUp, ui.betDown]) b.disabled = true;
  try {
    if (profile === 'B') {
      const r = await request('POST', '/api/bet', { side });
      if (r.status !== 200) return say(errorText(r), true);
      if (!r.body.accepted) return say(`refused: ${r.body.reasonCode} — ${r.body.reason}`, true);
      history.placed(r.body.betId, r.body.txSig, { side, amountUnits: r.body.amountUnits, entryPrice: r.body.entryPrice, expireTime: r.body.expireTime });
      return say(`bet #${r.body.betId} placed: ${side} ${tokens(r.body.amountUnits)} tokens at ${price8(r.body.entryPrice)}`);
    }
    const amountUnits = unitsOf(ui.amount.value);
    if (!amountUnits) return say('stake must be a number of tokens (up to 6 decimals)', true);
    if (wallets?.active) {
      // the player's own wallet signs and sends; the bet shows once the stream announces it
      const sent = await wallets.bet(side, ui.amount.value.trim());
      if (sent.signature) ui.status.dataset.tx = sent.signature;
      return say(sent.text, sent.error === true);
    }
    const r = await request('POST', '/api/bet', { address, side, amountUnits });
    if (r.status !== 200) return say(`refused (${r.status}): ${errorText(r)}`, true);
    history.placed(r.body.id, r.body.tx, {
      side,
      amountUnits,
      entryPrice: r.body.entryPrice,
      expireTime: contract ? Math.floor(Date.now() / 1000) + Number(contract.expirySeconds) : undefined,
    });
    say(`bet #${r.body.id} placed: ${side} ${tokens(amountUnits)} tokens at ${price8(r.body.entryPrice)}`);
    void refreshBalance();
  } finally {
    for (const b of [ui.betUp, ui.betDown]) b.disabled = !address;
  }
}

function describe(e) {
  switch (e.type) {
    case 'price':
      return `price ${e.price}`;
    case 'bet_open':
      return `bet_open #${e.id} ${e.side} ${tokens(e.amountUnits)} at ${price8(e.entryPrice)} by ${String(e.bettor).slice(0, 6)}…`;
    case 'bet_closed':
      return `bet_closed #${e.id} ${e.statusName} exit ${price8(e.exitPrice)}`;
    case 'bet_replay':
      return `bet_replay #${e.prevId} -> #${e.id} (replay ${e.replayCount})`;
    case 'resume':
      return `resume epoch ${e.epoch ?? '?'} seq ${e.seq ?? '?'} recovered ${e.recovered}`;
    default:
      return JSON.stringify(e);
  }
}

function onEvent(e) {
  if (e.type === 'price') showPrice(e);
  history.onEvent(e);
  // the resume message names the last seq of the stream; it is not an event of that seq
  const seq = e.type === 'resume' ? undefined : e.seq;
  const item = el('li', { dataset: { type: e.type, seq: seq ?? '' } }, seq !== undefined ? `${seq} ` : '', describe(e));
  ui.events.prepend(item);
  while (ui.events.childElementCount > 100) ui.events.lastElementChild?.remove();
}

// the window's countdown: the player's open bet, else how long a bet placed now would run
setInterval(() => {
  const open = history.openBet();
  if (open?.expireTime) {
    const left = Math.max(0, Math.ceil(open.expireTime - Date.now() / 1000));
    ui.countdown.textContent = left > 0 ? `#${open.id} closes in ${left} s` : `#${open.id} settling…`;
    ui.countdown.dataset.secondsLeft = String(left);
  } else {
    ui.countdown.textContent = contract ? `${contract.expirySeconds} s` : '—';
    delete ui.countdown.dataset.secondsLeft;
  }
}, 250);

ui.betUp.addEventListener('click', () => void bet('UP'));
ui.betDown.addEventListener('click', () => void bet('DOWN'));
if (testMode && profile === 'A') {
  ui.newWallet.hidden = false;
  ui.newWallet.addEventListener('click', async () => {
    const r = await request('POST', '/api/wallet', {});
    if (r.status !== 200) return say(`wallet: ${errorText(r)}`, true);
    say('new custodial wallet; fund it with the faucet');
    await useAddress(r.body.address);
  });
}
if (testMode) {
  ui.faucet.hidden = false;
  ui.faucet.addEventListener('click', async () => {
    if (!address) return;
    ui.faucet.disabled = true;
    const r = await request('GET', `/api/faucet/${encodeURIComponent(address)}`);
    ui.faucet.disabled = false;
    if (r.status !== 200) return say(`faucet: ${errorText(r)}`, true);
    say(`faucet: +${r.body.tokenHuman} tokens, +${r.body.sol} SOL`);
    ui.faucet.dataset.funded = 'true';
    await refreshBalance();
  });
}
if (profile === 'A' && !testMode) {
  byTestId('address-row').hidden = false;
  byTestId('use-address').addEventListener('click', () => void useAddress(byTestId('address-input').value.trim()));
}
if (profile === 'B') byTestId('amount-row').hidden = true;

const initial = await request('GET', '/api/price');
if (initial.status === 200) showPrice(initial.body);
const stream = eventStream({
  onEvent,
  onStatus: ({ state, text }) => {
    ui.connection.textContent = text;
    ui.connection.className = `badge ${state === 'live' ? 'live' : 'down-state'}`;
    ui.connection.dataset.state = state;
  },
});
// for operators and tests: drop the socket as the network would
window.gatewayPage = { stream };

await loadContract();
const saved = profile === 'A' ? localStorage.getItem(WALLET_KEY) : null;
if (saved && !address) await useAddress(saved);
else history.render();
document.body.dataset.ready = 'true';
