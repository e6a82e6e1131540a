import { describe, expect, it } from 'vitest';
import { isRefusal, ok, refuse, type Result } from './refusal.ts';

describe('refusals as values', () => {
  it('carries a code, a message and the fields of its own; tells itself from a success', () => {
    const open: Result<number, 'open_bet', { openBetId?: string }> = refuse('open_bet', 'an open bet exists', { openBetId: '7' });
    expect(open).toEqual({ ok: false, code: 'open_bet', message: 'an open bet exists', openBetId: '7' });
    expect(isRefusal(open)).toBe(true);
    expect(isRefusal(ok(3))).toBe(false);
    expect(isRefusal({ ok: false })).toBe(false); // no code: not one of ours
    expect(isRefusal(null)).toBe(false);
  });

  it('keeps its own fields from overriding what makes it a refusal', () => {
    const r = refuse('X', 'm', { ok: true, code: 'Y' } as unknown as object);
    expect(r).toMatchObject({ ok: false, code: 'X', message: 'm' });
  });
});
