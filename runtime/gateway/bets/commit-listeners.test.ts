import { describe, expect, it } from 'vitest';
import { quietLog } from '../../../test/support/quiet-log.ts';
import { CommitListeners } from './commit-listeners.ts';

const closed = {
  type: 'bet_closed' as const,
  id: '1',
  bettor: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin',
  exitPrice: 1,
  status: 1 as const,
  statusName: 'payout_done' as const,
  seq: 4,
};

describe('listeners of bet commits', () => {
  it('hears each commit in the order the listeners were added; one that throws does not stop the rest', () => {
    const heard: string[] = [];
    const listeners = new CommitListeners(quietLog);
    listeners.add('first', (events) => heard.push(`first ${events.map((e) => e.seq).join(',')}`));
    listeners.add('broken', () => {
      throw new Error('boom');
    });
    listeners.add('last', (events) => heard.push(`last ${events.length}`));
    listeners.publish([closed]);
    expect(heard).toEqual(['first 4', 'last 1']);
  });
});
