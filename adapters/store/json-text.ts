/**
 * JSON text that a memory store keeps for long (docs/operations.md#memory). V8 hands out
 * `JSON.stringify`'s result as a rope of the pieces it was built from, about a third larger than
 * the text, and keeps it so until something reads it whole; a store that holds thousands of them
 * keeps one flat copy instead. A record kept as text is also its own deep copy: what a caller
 * does with the object it passed or got back never changes what is stored.
 */

/** `text` as one flat string: a fresh copy (the encoder reads the rope whole; JSON text has no lone surrogates to lose). */
export function flatText(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

/** The JSON text of `value` as a store keeps it (flat). */
export function jsonToKeep(value: unknown): string {
  return flatText(JSON.stringify(value));
}
