/**
 * Live fan-out in shards (docs/architecture.md#fan-out-in-shards): every socket joins one of `count`
 * uWS topics, given in turn, and an event is published to one shard per turn of the event loop.
 * uWS writes a publication to every subscriber in one synchronous pass at the end of the turn; at
 * 19,000 sockets on loopback that pass takes a third of a second, and nothing else (HTTP requests,
 * new connections, acks from NATS) runs during it. In shards the same writes are spread over
 * `count` turns, with the loop's I/O between them, so a request waits for one shard's pass at
 * most. Events pending for a shard go out together in its turn (one write per socket for all of
 * them), in seq order.
 *
 * Each shard knows the last seq it has published: a resuming socket catches up to its shard's,
 * then joins the shard's topic in the same synchronous step (see event-stream.ts), so it neither
 * misses nor repeats what the shard publishes after.
 *
 * @example
 *   const fanout = new Fanout(8, (topic, text) => app.publish(topic, text));
 *   const shard = fanout.assign();
 *   ws.subscribe(fanout.topicOf(shard));
 *   fanout.publish(41, text);
 */

/** One shard: its topic, the last seq it published, and what waits for its turn. */
interface Shard {
  topic: string;
  published: number;
  pending: Array<{ seq: number; text: string }>;
}

/** Topics in shards, published one shard per turn of the loop. */
export class Fanout {
  private readonly shards: Shard[];
  private nextShard = 0;
  private nextTurn = 0;
  private turn: NodeJS.Immediate | null = null;

  constructor(
    count: number,
    private readonly send: (topic: string, text: string) => void,
    prefix = 'events',
  ) {
    if (!Number.isInteger(count) || count < 1) throw new Error(`fan-out shards must be a positive whole number, got ${count}`);
    this.shards = Array.from({ length: count }, (_, i) => ({ topic: count === 1 ? prefix : `${prefix}/${i}`, published: 0, pending: [] }));
  }

  /** The shard for a new socket (in turn, so shards stay even). */
  assign(): number {
    const shard = this.nextShard;
    this.nextShard = (this.nextShard + 1) % this.shards.length;
    return shard;
  }

  /** The topic of `shard`. */
  topicOf(shard: number): string {
    return (this.shards[shard] as Shard).topic;
  }

  /** The last seq `shard` has published. */
  publishedBy(shard: number): number {
    return (this.shards[shard] as Shard).published;
  }

  /** Queues the event of `seq` for every shard; shards publish it in their turns. */
  publish(seq: number, text: string): void {
    for (const shard of this.shards) shard.pending.push({ seq, text });
    this.turn ??= setImmediate(() => this.publishTurn());
  }

  /** Every shard has published up to `seq` already (a restarted process resumes numbering there). */
  startAt(seq: number): void {
    for (const shard of this.shards) {
      shard.pending.length = 0;
      shard.published = seq;
    }
  }

  /** Stops the turns (shutdown). */
  stop(): void {
    if (this.turn) clearImmediate(this.turn);
    this.turn = null;
  }

  /** Publishes what waits for the next shard that has anything; another turn while any shard has more. */
  private publishTurn(): void {
    this.turn = null;
    for (let tried = 0; tried < this.shards.length; tried++) {
      const shard = this.shards[this.nextTurn] as Shard;
      this.nextTurn = (this.nextTurn + 1) % this.shards.length;
      if (shard.pending.length === 0) continue;
      for (const e of shard.pending) {
        this.send(shard.topic, e.text);
        shard.published = e.seq;
      }
      shard.pending.length = 0;
      break;
    }
    if (this.shards.some((s) => s.pending.length > 0)) this.turn = setImmediate(() => this.publishTurn());
  }
}
