import { describe, expect, it } from 'vitest';
import { Fanout } from './fanout.ts';

const turn = () => new Promise((r) => setImmediate(r));

describe('fan-out in shards', () => {
  it('gives shards in turn and publishes one shard per turn of the loop, each its pending events in order', async () => {
    const sent: Array<[string, string]> = [];
    const f = new Fanout(3, (topic, text) => sent.push([topic, text]));
    expect([f.assign(), f.assign(), f.assign(), f.assign()]).toEqual([0, 1, 2, 0]);
    expect([0, 1, 2].map((s) => f.topicOf(s))).toEqual(['events/0', 'events/1', 'events/2']);
    f.publish(1, 'a');
    f.publish(2, 'b');
    expect(sent).toEqual([]);
    await turn();
    expect(sent).toEqual([
      ['events/0', 'a'],
      ['events/0', 'b'],
    ]);
    expect([f.publishedBy(0), f.publishedBy(1)]).toEqual([2, 0]);
    f.publish(3, 'c');
    await turn();
    await turn();
    expect(sent.slice(2)).toEqual([
      ['events/1', 'a'],
      ['events/1', 'b'],
      ['events/1', 'c'],
      ['events/2', 'a'],
      ['events/2', 'b'],
      ['events/2', 'c'],
    ]);
    await turn();
    expect(sent.slice(8)).toEqual([['events/0', 'c']]);
    expect([0, 1, 2].map((s) => f.publishedBy(s))).toEqual([3, 3, 3]);
  });

  it('is one topic named as given with one shard; starts at a seq with nothing pending', async () => {
    const sent: string[] = [];
    const f = new Fanout(1, (topic) => sent.push(topic), 'events');
    f.publish(5, 'x');
    f.startAt(9);
    await turn();
    expect([sent, f.publishedBy(0), f.topicOf(0)]).toEqual([[], 9, 'events']);
  });
});
