import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { flatText, keepJson, keptJson } from './json-text.ts';

const SNAPSHOT = {
  status: 'active',
  value: { open: 'placed' },
  historyValue: {},
  context: {
    seriesId: '240',
    id: '240',
    seq: '0',
    prevId: null,
    bettor: '3EsyUXsSaJpsGAa9XbaHHhDg9Z66pFhteYBMk3QFs5Hy',
    expireTime: 1795663436,
    lastError: null,
  },
  children: {},
};

describe('JSON text kept by memory stores', () => {
  it('gives back exactly the text it kept, for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        expect(keptJson(keepJson(text))).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps an object of a known shape as its values after its shape: about half the text of a bet snapshot', () => {
    const text = JSON.stringify(SNAPSHOT);
    const kept = keepJson(text);
    expect(kept.startsWith('~[')).toBe(true);
    expect(kept).not.toContain('"bettor"');
    expect(kept.length).toBeLessThan(text.length * 0.7);
    expect(keptJson(kept)).toBe(text);
  });

  it('keeps text that is not JSON (a damaged record) as it is', () => {
    for (const text of ['{"cut', '~[0,1]', '=x', '']) expect(keptJson(keepJson(text))).toBe(text);
  });

  it('flattens text without changing it', () => {
    const text = JSON.stringify({ s: 'é \u2028 "q" \ud83d\ude00', n: [1, 2] });
    expect(flatText(text)).toBe(text);
  });

  it('keeps objects of shapes beyond the ones it holds as plain text, still exactly', () => {
    for (let i = 0; i < 1_100; i++) {
      const text = JSON.stringify({ [`key${i}`]: i });
      expect(keptJson(keepJson(text))).toBe(text);
    }
    const late = JSON.stringify({ never: 'seen', before: [1] });
    expect(keepJson(late)).toBe(`=${late}`);
    expect(keptJson(keepJson(late))).toBe(late);
    expect(keptJson(keepJson(JSON.stringify(SNAPSHOT)))).toBe(JSON.stringify(SNAPSHOT));
  });
});
