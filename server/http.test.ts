import { describe, expect, it } from 'vitest';
import { assertNativeUws, HttpError, parseJson, statusLine } from './http.ts';

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

  it('has full status lines', () => {
    expect(statusLine(405)).toBe('405 Method Not Allowed');
    expect(statusLine(418)).toBe('418 Status');
  });
});
