// The exchange's live page: prices, accounts (create, list, select), a market order form,
// deposits, positions, PnL and the equity curve. Reads poll the REST API (the exchange has no stream).
import { lineChart } from '/ui/shared/chart.js';
import { byTestId, clock, decimals, el, errorText, request } from '/ui/shared/dom.js';

const API = '/api/v1';
const SELECTED_KEY = 'paper-exchange.account';
const ui = {
  connection: byTestId('connection'),
  prices: byTestId('prices'),
  accounts: byTestId('accounts'),
  accountForm: byTestId('account-form'),
  accountStatus: byTestId('account-status'),
  selected: byTestId('selected-account'),
  pnl: byTestId('pnl'),
  orderForm: byTestId('order-form'),
  orderResult: byTestId('order-result'),
  depositForm: byTestId('deposit-form'),
  depositResult: byTestId('deposit-result'),
  positions: byTestId('positions'),
  orders: byTestId('orders'),
};
const chart = lineChart(byTestId('equity-chart'), { color: '#3fb950', precision: 2 });
let selected = null;
let recorded = []; // equity points of the selected account as [ms, value]

const money = (v, digits = 2) => (v === undefined || v === null ? '—' : decimals(v, digits));
const signClass = (v) => (String(v).startsWith('-') ? 'down' : /^0(\.0*)?$/.test(String(v)) ? '' : 'up');
const message = (node, text, error = false) => {
  node.textContent = text;
  node.classList.toggle('error', error);
};

async function refreshPrices() {
  const r = await request('GET', `${API}/prices`);
  ui.connection.textContent = r.status === 200 ? 'live' : r.status === 0 ? 'unreachable' : `HTTP ${r.status}`;
  ui.connection.className = `badge ${r.status === 200 ? 'live' : 'down-state'}`;
  if (r.status !== 200) return;
  ui.prices.replaceChildren(
    ...r.body.map((p) =>
      el(
        'tr',
        { dataset: { symbol: p.symbol } },
        el('td', {}, p.symbol),
        el('td', { class: 'num' }, money(p.bid, 4)),
        el('td', { class: 'num' }, money(p.ask, 4)),
        el('td', { class: 'muted' }, clock(Date.parse(p.ts))),
      ),
    ),
  );
}

async function refreshAccounts() {
  const r = await request('GET', `${API}/accounts`);
  if (r.status !== 200) return message(ui.accountStatus, `accounts: ${errorText(r)}`, true);
  ui.accounts.replaceChildren(
    ...r.body.map((a) =>
      el(
        'tr',
        {
          testid: 'account-row',
          dataset: { accountId: a.id, selected: String(a.id === selected) },
          class: a.id === selected ? 'selected' : undefined,
          style: 'cursor: pointer',
          onclick: () => void select(a.id),
        },
        el('td', {}, a.id === selected ? '▸ ' : '', a.name),
        el('td', { class: 'num' }, money(a.equity)),
        el('td', { class: `num ${signClass(a.pnl)}` }, money(a.pnl)),
      ),
    ),
  );
  if (selected && !r.body.some((a) => a.id === selected)) await select(null);
}

async function select(id) {
  selected = id;
  if (id) localStorage.setItem(SELECTED_KEY, id);
  ui.selected.textContent = id ?? '—';
  ui.selected.dataset.accountId = id ?? '';
  byTestId('place-order').disabled = !id;
  byTestId('deposit').disabled = !id;
  recorded = [];
  chart.set([]);
  await Promise.all([refreshAccounts(), refreshAccount(true)]);
}

/** PnL, positions and orders of the selected account; the recorded equity curve when `withCurve`. */
async function refreshAccount(withCurve = false) {
  if (!selected) {
    ui.pnl.replaceChildren();
    ui.positions.replaceChildren();
    ui.orders.replaceChildren();
    return;
  }
  const id = encodeURIComponent(selected);
  const [pnl, positions, orders, equity] = await Promise.all([
    request('GET', `${API}/accounts/${id}/pnl`),
    request('GET', `${API}/accounts/${id}/positions`),
    request('GET', `${API}/accounts/${id}/orders?limit=20`),
    withCurve ? request('GET', `${API}/accounts/${id}/equity`) : Promise.resolve(null),
  ]);
  if (pnl.status === 200) {
    const p = pnl.body;
    const item = (label, key, value, cls = '') => [
      el('dt', { class: 'muted' }, label),
      el('dd', { class: `num ${cls}`, dataset: { field: key }, title: value }, money(value)),
    ];
    ui.pnl.replaceChildren(
      ...item('equity', 'equity', p.equity),
      ...item('PnL', 'pnl', p.pnl, signClass(p.pnl)),
      ...item('PnL %', 'pnlPct', p.pnlPct, signClass(p.pnlPct)),
      ...item('realized', 'realizedPnl', p.realizedPnl, signClass(p.realizedPnl)),
      ...item('unrealized', 'unrealizedPnl', p.unrealizedPnl, signClass(p.unrealizedPnl)),
      ...item('deposits', 'netDeposits', p.netDeposits),
    );
    ui.pnl.dataset.equity = p.equity;
  }
  if (positions.status === 200) {
    ui.positions.replaceChildren(
      ...positions.body.map((p) =>
        el(
          'tr',
          { testid: 'position-row', dataset: { symbol: p.symbol, qty: p.qty } },
          el('td', {}, p.symbol),
          el('td', { class: 'num' }, money(p.qty, 6)),
          el('td', { class: 'num' }, money(p.avgCost, 4)),
          el('td', { class: `num ${signClass(p.realizedPnl)}` }, money(p.realizedPnl)),
        ),
      ),
    );
  }
  if (orders.status === 200) {
    ui.orders.replaceChildren(
      ...orders.body.map((o) =>
        el(
          'tr',
          { testid: 'order-row', dataset: { orderId: o.orderId, status: o.status } },
          el('td', { class: 'muted' }, clock(Date.parse(o.createdAt))),
          el('td', {}, o.symbol),
          el('td', { class: o.side === 'BUY' ? 'up' : 'down' }, o.side),
          el('td', { class: 'num' }, money(o.qty, 6)),
          el('td', { class: 'num' }, money(o.price, 4)),
          el('td', { class: 'num' }, money(o.fee, 4)),
          el('td', {}, o.status),
        ),
      ),
    );
  }
  if (equity?.status === 200) recorded = equity.body.map((p) => [Date.parse(p.ts), Number(p.equity)]);
  // the recorded curve plus where equity stands now (valued at the live bid; not written to the ledger)
  if (pnl.status === 200) chart.set([...recorded, [Date.now(), Number(pnl.body.equity)]]);
  else if (withCurve) chart.set(recorded);
}

ui.accountForm.addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const form = new FormData(ui.accountForm);
  const r = await request('POST', `${API}/accounts`, { name: String(form.get('name')).trim(), initialCash: String(form.get('initialCash')).trim() });
  if (r.status !== 201) return message(ui.accountStatus, `${r.body?.error ?? r.status}: ${errorText(r)}`, true);
  message(ui.accountStatus, `account ${r.body.name} created with ${money(r.body.initialCash)} USDT`);
  ui.accountForm.reset();
  await select(r.body.id);
});

ui.orderForm.addEventListener('submit', async (ev) => {
  ev.preventDefault();
  if (!selected) return;
  const form = new FormData(ui.orderForm);
  const body = { symbol: String(form.get('symbol')), side: String(form.get('side')), qty: String(form.get('qty')).trim() };
  // one key per click: a retried request (network hiccup) never trades twice
  const r = await request('POST', `${API}/accounts/${encodeURIComponent(selected)}/orders`, body, { 'Idempotency-Key': crypto.randomUUID() });
  if (r.status !== 201) {
    ui.orderResult.dataset.status = r.body?.error ?? String(r.status);
    return message(ui.orderResult, `${r.body?.error ?? r.status}: ${errorText(r)}`, true);
  }
  const o = r.body;
  ui.orderResult.dataset.status = o.status;
  message(ui.orderResult, `${o.status}: ${o.side} ${money(o.qty, 6)} ${o.symbol} at ${money(o.price, 4)}, fee ${money(o.fee, 4)}; cash ${money(o.cash)}`);
  await Promise.all([refreshAccount(true), refreshAccounts()]);
});

ui.depositForm.addEventListener('submit', async (ev) => {
  ev.preventDefault();
  if (!selected) return;
  const amount = String(new FormData(ui.depositForm).get('amount')).trim();
  const r = await request('POST', `${API}/accounts/${encodeURIComponent(selected)}/deposits`, { amount, reason: 'from the web page' });
  if (r.status !== 201) return message(ui.depositResult, `${r.body?.error ?? r.status}: ${errorText(r)}`, true);
  message(ui.depositResult, `${String(r.body.amount).startsWith('-') ? 'withdrew' : 'deposited'} ${money(r.body.amount)}; cash ${money(r.body.cash)}`);
  ui.depositForm.reset();
  await Promise.all([refreshAccount(true), refreshAccounts()]);
});

await refreshPrices();
await refreshAccounts();
const saved = localStorage.getItem(SELECTED_KEY);
if (saved && ui.accounts.querySelector(`[data-account-id="${CSS.escape(saved)}"]`)) await select(saved);
setInterval(() => void refreshPrices(), 1_000);
setInterval(() => void Promise.all([refreshAccounts(), refreshAccount()]), 2_000);
document.body.dataset.ready = 'true';
