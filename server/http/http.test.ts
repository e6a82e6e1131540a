import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestingDepth, NOT_UTF8, NOT_WELL_FORMED, parseJson, TOO_DEEP } from './body.ts';
import { assertNativeUws } from './listen.ts';
import { HttpError, statusLine } from './reply.ts';

describe('http helpers', () => {
  it('loads the native uWS addon here', () => {
    expect(() => assertNativeUws()).not.toThrow();
  });

  it("parses JSON, treats an empty body as undefined, and maps malformed JSON to the caller's error", () => {
    const invalid = () => new HttpError(400, { error: 'invalid JSON body' });
    expect(parseJson(Buffer.from('{"a":1}'), invalid)).toEqual({ a: 1 });
    expect(parseJson(Buffer.alloc(0), invalid)).toBeUndefined();
    expect(() => parseJson(Buffer.from('{'), invalid)).toThrowError(HttpError);
  });

  it('refuses, without recursing, JSON nested deeper than the limit; brackets inside strings do not count', () => {
    const reasons: Array<string | undefined> = [];
    const invalid = (reason?: string) => {
      reasons.push(reason);
      return new HttpError(400, { error: 'invalid JSON body' });
    };
    const nested = (depth: number) => Buffer.from('['.repeat(depth) + ']'.repeat(depth));
    expect(parseJson(nested(MAX_JSON_DEPTH), invalid)).toBeInstanceOf(Array);
    expect(() => parseJson(nested(MAX_JSON_DEPTH + 1), invalid)).toThrowError(HttpError);
    expect(() => parseJson(nested(30_000), invalid)).toThrowError(HttpError);
    expect(() => parseJson(Buffer.from('{"a":'.repeat(30_000)), invalid)).toThrowError(HttpError);
    expect(reasons).toEqual([TOO_DEEP, TOO_DEEP, TOO_DEEP]);
    expect(nestingDepth('["[[[[", {"a": "]]]\\"[{"}]')).toBe(2);
    expect(parseJson(Buffer.from(JSON.stringify({ a: '['.repeat(1_000) })), invalid)).toEqual({ a: '['.repeat(1_000) });
  });

  it('refuses a body that is not UTF-8, and strings that are not well-formed Unicode', () => {
    const reasons: Array<string | undefined> = [];
    const invalid = (reason?: string) => {
      reasons.push(reason);
      return new HttpError(400, { error: 'invalid JSON body' });
    };
    expect(() => parseJson(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), invalid)).toThrowError(HttpError);
    expect(() => parseJson(Buffer.from('{"a":"\\ud800"}'), invalid)).toThrowError(HttpError);
    expect(reasons).toEqual([NOT_UTF8, NOT_WELL_FORMED]);
    expect(parseJson(Buffer.from('{"a":"\\ud83d\\ude00"}'), invalid)).toEqual({ a: '😀' });
  });

  it('has full status lines', () => {
    expect(statusLine(405)).toBe('405 Method Not Allowed');
    expect(statusLine(418)).toBe('418 Status');
  });
});
