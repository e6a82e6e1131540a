// Small DOM and fetch helpers shared by both pages (plain ES module, no build step).

/** The element with `data-testid` = `id` (the names the pages promise to outside clients). */
export const byTestId = (id, root = document) => root.querySelector(`[data-testid="${id}"]`);

/**
 * Creates an element: `el('td', { class: 'num', dataset: { betId: '1' } }, 'text', child)`.
 * @param {string} tag
 * @param {Record<string, unknown>} [attrs]
 * @param {...(Node|string|number|null|undefined)} children
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'dataset') Object.assign(node.dataset, v);
    else if (k === 'testid') node.dataset.testid = String(v);
    else if (k.startsWith('on') && typeof v === 'function') node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c !== undefined && c !== null) node.append(c instanceof Node ? c : String(c));
  return node;
}

/**
 * One JSON request; never throws on a status. Resolves `{status, body}` (`status` 0 when the
 * server could not be reached).
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @param {Record<string, string>} [headers]
 */
export async function request(method, path, body, headers = {}) {
  try {
    const init = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers['Content-Type'] = 'application/json';
    }
    const res = await fetch(path, init);
    const text = await res.text();
    let parsed = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: keep the text */
    }
    return { status: res.status, body: parsed };
  } catch (err) {
    return { status: 0, body: { error: err instanceof Error ? err.message : String(err) } };
  }
}

/** The error text of a refused request. */
export const errorText = (r) =>
  r.body && typeof r.body === 'object' ? (r.body.message ?? r.body.error ?? JSON.stringify(r.body)) : String(r.body ?? `HTTP ${r.status}`);

/** A decimal string cut to `digits` fraction digits (no rounding, no float). */
export function decimals(text, digits) {
  const s = String(text);
  const dot = s.indexOf('.');
  if (dot < 0) return digits > 0 ? `${s}.${'0'.repeat(digits)}` : s;
  const frac = s.slice(dot + 1, dot + 1 + digits).padEnd(digits, '0');
  return digits > 0 ? `${s.slice(0, dot)}.${frac}` : s.slice(0, dot);
}

/** Time of day of a unix-ms timestamp. */
export const clock = (ms) => new Date(ms).toLocaleTimeString([], { hour12: false });
