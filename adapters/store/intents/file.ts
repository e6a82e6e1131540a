/**
 * Pending intents in an append-only line journal (docs/architecture.md#the-embedded-journal):
 * `{"put":{...}}` and `{"remove":{"key","signature"}}` lines, group-committed (one fdatasync per
 * event-loop turn), replayed at open, and rewritten with just the live intents when the file holds
 * many more lines than intents.
 */
import * as v from 'valibot';
import { LineJournal } from '../file/line-journal.ts';
import { createMemoryIntentStore } from './memory.ts';
import { PendingIntentSchema, mayRecord, type IntentStore, type PendingIntent } from './port.ts';

const Line = v.union([v.object({ put: PendingIntentSchema }), v.object({ remove: v.object({ key: v.string(), signature: v.string() }) })]);

/** Lines past which the journal is compacted (when it holds more than twice this many per live intent). */
const COMPACT_AFTER = 1_000;

const parseLine = (line: string): unknown => {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return null;
  }
};

/** The intents of a journal as it is now, without opening it for writing (the operator CLI, while a gateway runs). */
export async function readFileIntents(path: string): Promise<PendingIntent[]> {
  const state = createMemoryIntentStore();
  for (const line of LineJournal.read(path, (l) => void JSON.parse(l))) {
    const parsed = v.safeParse(Line, parseLine(line));
    if (parsed.success) state.apply(parsed.output);
  }
  return state.list();
}

export interface FileIntentStore extends IntentStore {
  close(): void;
}

export function openFileIntentStore(path: string): FileIntentStore {
  const state = createMemoryIntentStore();
  const { journal, lines } = LineJournal.open(path);
  let count = 0;
  for (const line of lines) {
    const parsed = v.safeParse(Line, parseLine(line));
    if (parsed.success) state.apply(parsed.output); // a damaged line is skipped: at worst an intent is not resumed
    count++;
  }
  const write = async (line: v.InferOutput<typeof Line>): Promise<void> => {
    state.apply(line);
    await journal.appendDurably(JSON.stringify(line));
    if (++count > COMPACT_AFTER && count > 2 * state.size()) {
      const live = await state.list();
      journal.rewrite(live.map((put) => JSON.stringify({ put })));
      count = live.length;
    }
  };
  return {
    put: async (intent, heightNow) => {
      if (!mayRecord(state.held(intent.key), intent, heightNow)) return false;
      await write({ put: intent });
      return true;
    },
    remove: (key, signature) => write({ remove: { key, signature } }),
    list: () => state.list(),
    close: () => journal.close(),
  };
}
