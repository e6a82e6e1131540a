/**
 * In-memory `SnapshotStore`: the embedded default when `REDIS_URL` is unset (design: "Run
 * contract"). Keeps JSON text, not objects, so it round-trips exactly like Redis does.
 *
 * @example
 *   const store = new MemorySnapshotStore();
 */
import { parseOrNull, type SnapshotStore, type StoredSnapshot } from './snapshot-port.ts';

/** Snapshots in a Map; lost when the process ends. */
export class MemorySnapshotStore implements SnapshotStore {
  private readonly records = new Map<string, { json: string; final: boolean }>();

  async save(id: string, snapshot: unknown, final: boolean): Promise<void> {
    this.records.set(id, { json: JSON.stringify(snapshot), final });
  }

  async load(id: string): Promise<unknown | null> {
    const rec = this.records.get(id);
    return rec ? (JSON.parse(rec.json) as unknown) : null;
  }

  async loadLive(): Promise<StoredSnapshot[]> {
    const out: StoredSnapshot[] = [];
    for (const [id, rec] of this.records) if (!rec.final) out.push({ id, snapshot: parseOrNull(rec.json) });
    return out;
  }

  async isLive(id: string): Promise<boolean> {
    const rec = this.records.get(id);
    return rec !== undefined && !rec.final;
  }

  async close(): Promise<void> {}
}
