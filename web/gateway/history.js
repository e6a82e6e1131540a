// The player's bets with their evidence. From `GET /api/bets?address=` and `GET /api/bets/:id`
// when the gateway has them, otherwise built from the bet_open / bet_closed / bet_replay events
// of the stream; either way one table, newest first.
import { byTestId, clock, el, request } from '/ui/shared/dom.js';
import { verifyBet } from '/ui/verify.js';

const STATUS_NAMES = ['open', 'payout_done', 'house_won', 'refunded'];
const OUTCOME_TEXT = { open: 'open', payout_done: 'won', house_won: 'lost', refunded: 'refunded' };

/** Price x 1e8 as a decimal string with 8 fraction digits. */
export const price8 = (v) => {
  if (v === undefined || v === null || v === '' || Number(v) === 0) return '—';
  if (!/^\d+$/.test(String(v))) return String(v);
  const s = BigInt(String(v).split('.')[0]).toString().padStart(9, '0');
  return `${s.slice(0, -8)}.${s.slice(-8)}`;
};

/** Base units (6 decimals) as tokens. */
export const tokens = (units) => {
  if (units === undefined || units === null) return '—';
  if (!/^\d+$/.test(String(units))) return String(units);
  const s = BigInt(String(units)).toString().padStart(7, '0');
  return `${s.slice(0, -6)}.${s.slice(-6)}`.replace(/\.?0+$/, '');
};

/** A bet item from the API, whatever subset of the Profile B bet fields it carries, in one shape. */
function normalise(item) {
  const statusCode = typeof item.statusCode === 'number' ? item.statusCode : typeof item.status === 'number' ? item.status : undefined;
  const statusName =
    item.statusName ?? item.result ?? (statusCode !== undefined ? STATUS_NAMES[statusCode] : item.status === 'open' ? 'open' : undefined) ?? 'open';
  return {
    id: String(item.id),
    side: item.side,
    amountUnits: item.amountUnits ?? item.amount,
    entryPrice: item.entryPrice,
    exitPrice: item.exitPrice,
    expireTime: item.expireTime,
    statusName,
    placeTx: item.evidence?.placeTx ?? item.placeTx ?? item.tx,
    netUnits: item.netUnits,
    evidence: item.evidence ?? null,
  };
}

export class BetHistory {
  /** @param {{ onChange?: () => void }} [options] */
  constructor(options = {}) {
    this.address = null;
    this.bets = new Map();
    this.api = null; // unknown until asked: true when GET /api/bets answers 200
    this.onChange = options.onChange ?? (() => {});
  }

  /** The open bet of the player, if any. */
  openBet() {
    for (const b of this.bets.values()) if (b.statusName === 'open') return b;
    return null;
  }

  /** Follows `address` (clears what was shown for another one). */
  async follow(address) {
    if (address !== this.address) this.bets.clear();
    this.address = address;
    this.render();
    await this.reload();
  }

  /** Reads the history from the API (when it answers 200). */
  async reload() {
    if (!this.address || this.api === false) return;
    const r = await request('GET', `/api/bets?address=${encodeURIComponent(this.address)}&limit=20`);
    if (r.status !== 200 || !Array.isArray(r.body?.items)) {
      this.api = false;
      this.render();
      return;
    }
    this.api = true;
    for (const item of r.body.items) this.merge(normalise(item));
    this.render();
  }

  /** Fetches one bet's evidence from the API (settled bets). */
  async loadEvidence(id) {
    if (this.api !== true) return;
    const r = await request('GET', `/api/bets/${encodeURIComponent(id)}`);
    if (r.status === 200 && r.body) {
      this.merge(normalise(r.body));
      this.render();
    }
  }

  merge(bet) {
    const old = this.bets.get(bet.id) ?? {};
    const next = { ...old };
    for (const [k, v] of Object.entries(bet)) if (v !== undefined && v !== null) next[k] = v;
    this.bets.set(bet.id, next);
  }

  /** A bet this page placed: remembers its transaction. */
  placed(id, tx, fields = {}) {
    const settled = this.bets.get(String(id))?.statusName;
    this.merge({ ...fields, id: String(id), placeTx: tx, statusName: settled && settled !== 'open' ? settled : 'open' });
    this.render();
  }

  /** Takes the player's bet events from the stream. */
  onEvent(e) {
    if (!this.address || e.bettor !== this.address) return;
    if (e.type === 'bet_open' || e.type === 'bet_replay') {
      const existing = this.bets.get(String(e.id));
      this.merge({
        id: String(e.id),
        side: e.side,
        amountUnits: e.amountUnits,
        entryPrice: e.entryPrice,
        expireTime: e.expireTime,
        statusName: existing?.statusName && existing.statusName !== 'open' ? existing.statusName : 'open',
        openSeq: e.seq,
        prevId: e.prevId,
      });
      if (e.type === 'bet_replay' && e.prevId !== undefined) this.merge({ id: String(e.prevId), statusName: 'refunded', replayedAs: String(e.id) });
    } else if (e.type === 'bet_closed') {
      this.merge({ id: String(e.id), exitPrice: e.exitPrice, statusName: e.statusName ?? STATUS_NAMES[e.status] ?? 'open', closeSeq: e.seq });
      void this.loadEvidence(String(e.id));
    } else return;
    this.render();
    this.onChange();
  }

  /** Checks the signed ticks of settled bets that have them, once each, then shows the verdict. */
  verifySettled() {
    for (const b of this.bets.values()) {
      if (b.verification !== undefined || !b.evidence?.signed || b.statusName === 'open') continue;
      b.verification = null; // being checked
      void verifyBet(b).then((verdict) => {
        b.verification = verdict;
        this.render();
      });
    }
  }

  render() {
    this.verifySettled();
    const body = byTestId('history');
    const source = byTestId('history-source');
    if (!body) return;
    const rows = [...this.bets.values()].sort((a, b) => Number(BigInt(b.id) - BigInt(a.id)));
    body.replaceChildren(
      ...rows.map((b) =>
        el(
          'tr',
          { testid: 'history-row', dataset: { betId: b.id, status: b.statusName } },
          el('td', { class: 'mono' }, `#${b.id}`),
          el('td', { class: b.side === 'UP' ? 'up' : 'down' }, b.side ?? ''),
          el('td', { class: 'num' }, tokens(b.amountUnits)),
          el('td', { class: 'num' }, price8(b.entryPrice)),
          el('td', { class: 'num' }, price8(b.exitPrice)),
          el(
            'td',
            { class: b.statusName, testid: 'outcome' },
            OUTCOME_TEXT[b.statusName] ?? b.statusName,
            b.replayedAs ? ` (tie, replayed as #${b.replayedAs})` : '',
            verdictOf(b),
          ),
          el('td', {}, evidenceOf(b)),
        ),
      ),
    );
    if (source)
      source.textContent = !this.address ? 'No wallet yet.' : this.api ? 'From the gateway’s bet history.' : 'From the event feed since this page opened.';
  }
}

/** A settled bet's check of its signed ticks (verify.js): verified, or what failed. */
function verdictOf(b) {
  const v = b.verification;
  if (!v) return null;
  const short = `${v.signer.slice(0, 4)}…${v.signer.slice(-4)}`;
  return el(
    'span',
    { class: v.ok ? 'verified' : 'unverified', testid: 'verified', dataset: { verified: String(v.ok) }, title: `${v.why}; price signer ${v.signer}` },
    v.ok ? ` ✓ verified (signer ${short})` : ` ✗ not verified: ${v.why}`,
  );
}

/** The evidence of one bet, as far as it is known. */
function evidenceOf(b) {
  const rows = [];
  const add = (k, v) => v !== undefined && v !== null && v !== '' && rows.push(el('dt', {}, k), el('dd', { class: 'mono' }, String(v)));
  const ev = b.evidence;
  if (ev) {
    // evidence prices are x 1e8 like the bet's, times unix ms
    if (ev.entry) add('entry', `${price8(ev.entry.price)} at ${ev.entry.ts ? clock(Number(ev.entry.ts)) : '?'} (${ev.entry.source ?? '?'})`);
    if (ev.exit)
      add(
        'exit',
        `${price8(ev.exit.price)} at ${ev.exit.ts ? clock(Number(ev.exit.ts)) : '?'} (${ev.exit.source ?? '?'}${ev.exit.rule ? `; ${ev.exit.rule}` : ''})`,
      );
    if (ev.exit?.reason) add('why', ev.exit.reason);
    if (Array.isArray(ev.ticks)) add('ticks', ev.ticks.length ? `${ev.ticks.length}: ${ev.ticks.map((t) => price8(t.price)).join(', ')}` : '0');
    else if (ev.ticks !== undefined) add('ticks', ev.ticks);
    add('place tx', ev.placeTx);
    add('close tx', ev.closeTx);
    add('previous bet', ev.prevId);
    add('next bet', ev.nextId);
    if (b.netUnits !== undefined && b.netUnits !== null)
      add('net', `${String(b.netUnits).startsWith('-') ? '-' : '+'}${tokens(String(b.netUnits).replace('-', ''))} tokens`);
  } else {
    add('entry', b.entryPrice !== undefined ? `${price8(b.entryPrice)} (bet_open${b.openSeq ? ` seq ${b.openSeq}` : ''})` : undefined);
    add('exit', b.exitPrice !== undefined ? `${price8(b.exitPrice)} (bet_closed${b.closeSeq ? ` seq ${b.closeSeq}` : ''})` : undefined);
    add('expires', b.expireTime ? clock(b.expireTime * 1000) : undefined);
    add('place tx', b.placeTx);
    add('previous bet', b.prevId);
  }
  if (rows.length === 0) return '';
  return el('details', { class: 'evidence', testid: 'evidence' }, el('summary', {}, 'evidence'), el('dl', {}, ...rows));
}
