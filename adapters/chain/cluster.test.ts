import { describe, expect, it } from 'vitest';
import { classifyGenesis } from './cluster.ts';

describe('classifyGenesis', () => {
  it('knows the three public clusters, declared test chains, and nothing else', () => {
    for (const hash of [
      '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d',
      'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG',
      '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY',
    ]) {
      expect(classifyGenesis(hash, [hash])).toBe('public'); // declaring a public chain local does not make it local
    }
    expect(classifyGenesis('C5cMV2Pk2NTQ5LAz8dmF9rFswhJVKKtWqdTrGkrP3HEr', ['C5cMV2Pk2NTQ5LAz8dmF9rFswhJVKKtWqdTrGkrP3HEr'])).toBe('local');
    expect(classifyGenesis('C5cMV2Pk2NTQ5LAz8dmF9rFswhJVKKtWqdTrGkrP3HEr', [])).toBe('unknown');
    expect(classifyGenesis('toString', [])).toBe('unknown');
  });
});
