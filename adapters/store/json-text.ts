/**
 * JSON text that a memory store keeps for long (docs/operations.md#memory).
 *
 * V8 hands out `JSON.stringify`'s result as a rope of the pieces it was built from, about a third
 * larger than the text, and keeps it so until something reads it whole: `flatText` makes one
 * flat copy. A record kept as text is also its own deep copy: what a caller does with the object
 * it passed or got back never changes what is stored.
 *
 * `keepJson` goes further for records that all have the same few shapes (bet snapshots, bet
 * history records): their key names are most of their text, so each object is kept as an array
 * of its values after the number of its shape (its keys, in order, held once per shape), about
 * half the text. `keptJson` gives back exactly the text that was kept.
 *
 * @example
 *   const kept = keepJson(JSON.stringify(record)); // '~[0,"7","9xQe…",…]'
 *   keptJson(kept) === JSON.stringify(record);     // true
 */

/** `text` as one flat string: a fresh copy (the encoder reads the rope whole; JSON text has no lone surrogates to lose). */
export function flatText(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

/** the first character of a text kept in the compact form */
const COMPACT = '~';
/** the first character of a text kept as it was (shapes beyond those held, or not JSON at all) */
const AS_IS = '=';
/** shapes held at most; objects of further shapes are kept as plain text */
const MAX_SHAPES = 1_000;
/** the array that stands for an array (an object's stands for its shape: a number >= 0) */
const ARRAY = -1;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const shapeIds = new Map<string, number>();
const shapeKeys: string[][] = [];

/** The number of the shape with these keys, or null when no more shapes are held. */
function shapeOf(keys: string[]): number | null {
  const name = JSON.stringify(keys);
  let id = shapeIds.get(name);
  if (id === undefined) {
    if (shapeKeys.length >= MAX_SHAPES) return null;
    id = shapeKeys.length;
    shapeKeys.push(keys);
    shapeIds.set(name, id);
  }
  return id;
}

/** `value` with each object as [shape, ...values] and each array as [ARRAY, ...items]; null when a shape is not held. */
function compact(value: Json): Json | undefined {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out: Json[] = [ARRAY];
    for (const item of value) {
      const c = compact(item);
      if (c === undefined) return undefined;
      out.push(c);
    }
    return out;
  }
  const keys = Object.keys(value);
  const shape = shapeOf(keys);
  if (shape === null) return undefined;
  const out: Json[] = [shape];
  for (const key of keys) {
    const c = compact(value[key] as Json);
    if (c === undefined) return undefined;
    out.push(c);
  }
  return out;
}

/** The JSON text of a compacted value, as `JSON.stringify` wrote the value it was made from. */
function textOf(value: Json): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const [head, ...rest] = value as Json[];
  if (head === ARRAY) return `[${rest.map(textOf).join(',')}]`;
  const keys = shapeKeys[head as number] as string[];
  return `{${rest.map((v, i) => `${JSON.stringify(keys[i])}:${textOf(v)}`).join(',')}}`;
}

/**
 * The JSON text `json` (made by `JSON.stringify`) compact when its shapes are held, else as it is,
 * after a character that says which; not flattened (see `keepJson`). Text that is not JSON (a
 * damaged record) is kept as it is too, and given back so.
 */
export function compactJson(json: string): string {
  let value: Json;
  try {
    value = JSON.parse(json) as Json;
  } catch {
    return AS_IS + json;
  }
  const c = compact(value);
  return c === undefined ? AS_IS + json : COMPACT + JSON.stringify(c);
}

/** How a store keeps the JSON text `json` (made by `JSON.stringify`): `compactJson`, flat. */
export function keepJson(json: string): string {
  return flatText(compactJson(json));
}

/** The text that `keepJson` (or `compactJson`) kept. */
export function keptJson(kept: string): string {
  return kept.startsWith(COMPACT) ? textOf(JSON.parse(kept.slice(1)) as Json) : kept.slice(1);
}
