/**
 * Text that may not be JSON, read where a bad value is an answer of its own (a schema check
 * follows and refuses it), not an error.
 *
 * @example
 *   const parsed = v.safeParse(Schema, jsonOrUndefined(line)); // not JSON: the schema's issue
 */

/** `text` parsed as JSON, or undefined when it is not JSON. */
export function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
