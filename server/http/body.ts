/**
 * Reading and parsing request bodies, once for every surface (docs/architecture.md#http-kit): a
 * size limit (413), then JSON that any store and script downstream can take. A body is refused
 * (the surface's 400) when it is not UTF-8, when it nests deeper than `MAX_JSON_DEPTH`, when it
 * does not parse, or when a string in it is not well-formed Unicode (a `\ud800` escape without its
 * pair). The depth is counted by one flat scan before parsing, so no body can make the server
 * recurse: a body of 30,000 `[` is a 400, not a stack overflow.
 */
import type { Reply } from './reply.ts';
import { HttpError } from './reply.ts';

/** Deepest nesting of arrays and objects a body may have; no request of either API needs more than a few levels. */
export const MAX_JSON_DEPTH = 64;

/** The 413 of a body over `limit` bytes. */
export const tooLarge = (limit: number): HttpError => new HttpError(413, { error: 'PAYLOAD_TOO_LARGE', message: `body larger than ${limit} bytes` });

/**
 * Bodies past the limit up to this size are read to their end (and dropped) before the 413 is
 * sent: the answer closes the connection, and closing while the client is still sending makes
 * its kernel reset the connection, often before the client has read the 413. Past this size the
 * 413 goes at once (a client may not make the server read without end).
 */
export const DRAIN_OVERSIZE_BYTES = 1024 * 1024;

/**
 * Reads the whole body, refusing more than `limit` bytes with 413 (once the body, up to
 * `DRAIN_OVERSIZE_BYTES`, has arrived). Must be called synchronously inside the uWS handler
 * (before any await). Resolves with the raw bytes.
 */
export function readBody(r: Reply, limit = 64 * 1024): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    r.res.onData((chunk, isLast) => {
      if (refused) return;
      size += chunk.byteLength;
      if (size > limit) {
        chunks.length = 0; // dropped: only its end is waited for
        if (isLast || size > DRAIN_OVERSIZE_BYTES) {
          refused = true;
          reject(tooLarge(limit));
        }
        return;
      }
      // uWS reuses the chunk's memory once this returns: it is copied (once; a body in one chunk is not concatenated)
      const copy = Buffer.from(chunk.slice(0));
      if (!isLast) chunks.push(copy);
      else if (chunks.length === 0) resolve(copy);
      else {
        chunks.push(copy);
        resolve(Buffer.concat(chunks));
      }
    });
  });
}

/** Why a body was refused although it parsed: a `\ud800`-style escape without its pair. */
export const NOT_WELL_FORMED = 'strings must be well-formed Unicode (a \\uD800-\\uDFFF escape without its pair is not)';
export const NOT_UTF8 = 'the body is not UTF-8';
export const TOO_DEEP = `arrays and objects nest deeper than ${MAX_JSON_DEPTH} levels`;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The deepest nesting of `text` (brackets inside strings do not count); stops counting past `max`. */
export function nestingDepth(text: string, max = MAX_JSON_DEPTH): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > deepest) deepest = depth;
      if (deepest > max) return deepest;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/** Whether every string in `value` (object keys too) is well-formed Unicode; `value` is at most `MAX_JSON_DEPTH` deep. */
export function wellFormed(value: unknown): boolean {
  if (typeof value === 'string') return value.isWellFormed();
  if (Array.isArray(value)) return value.every(wellFormed);
  if (typeof value === 'object' && value !== null) {
    for (const k in value) if (!k.isWellFormed() || !wellFormed((value as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/**
 * Parses bytes as JSON; `undefined` for an empty body; throws `invalid(reason)` for a body it
 * cannot take (see the file's header): the caller's 400 in the caller's shape.
 */
export function parseJson(bytes: Buffer, invalid: (reason?: string) => HttpError): unknown {
  if (bytes.length === 0) return undefined;
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw invalid(NOT_UTF8);
  }
  if (nestingDepth(text) > MAX_JSON_DEPTH) throw invalid(TOO_DEEP);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch (cause) {
    const err = invalid();
    throw new HttpError(err.status, err.body, { cause });
  }
  if (!wellFormed(parsed)) throw invalid(NOT_WELL_FORMED);
  return parsed;
}
