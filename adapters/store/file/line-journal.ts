/**
 * An append-only file of JSON lines, the durable half of every embedded store
 * (docs/architecture.md#the-embedded-journal). A restart reads every line back; a torn last line
 * (the process was killed in the middle of a write, before anyone was told it was written) is cut
 * off; damage before the last
 * line stops the open. `appendDurably` group-commits: one fdatasync at the end of the event-loop
 * turn serves every line appended in it. `rewrite` replaces the whole file atomically (compaction).
 *
 * @example
 *   const { journal, lines } = LineJournal.open('.data/gateway/journal.log');
 *   for (const l of lines) apply(JSON.parse(l));
 *   await journal.appendDurably(JSON.stringify(change));
 */
import { closeSync, existsSync, fdatasync, fdatasyncSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { writeFileAtomicallySync } from './atomic-file.ts';

/** Bytes read per call while scanning a file: lines are found without holding the whole file at once. */
const READ_CHUNK = 1 << 20;

/**
 * Calls `visit` with each complete line of `path` in order and the byte offset it starts at (nothing
 * when the file does not exist) and returns how many bytes the accepted lines span. The file is read in chunks, so its size is
 * bounded by the disk, not by one buffer. A line `visit` throws on is a torn tail when no complete
 * line follows it; otherwise the file is damaged and the read stops with an error.
 */
function scanLines(path: string, visit: (line: string, at: number) => void): number {
  if (!existsSync(path)) return 0;
  const fd = openSync(path, 'r');
  try {
    const chunk = Buffer.allocUnsafe(READ_CHUNK);
    let pending: Buffer[] = []; // pieces of a line that spans chunks
    let offset = 0; // file offset of the next byte read
    let lineStart = 0; // file offset where the current line begins
    let goodBytes = 0;
    let rejected: { at: number; err: unknown } | null = null;
    for (;;) {
      const n = readSync(fd, chunk, 0, READ_CHUNK, offset);
      if (n === 0) break;
      offset += n;
      let from = 0;
      for (let nl = chunk.indexOf(10, from); nl >= 0 && nl < n; nl = chunk.indexOf(10, from)) {
        const piece = chunk.subarray(from, nl);
        const bytes = pending.length > 0 ? Buffer.concat([...pending, piece]) : piece;
        pending = [];
        if (rejected) throw new Error(`${path} is corrupt at byte ${rejected.at}`, { cause: rejected.err });
        try {
          visit(bytes.toString('utf8'), lineStart);
          goodBytes = lineStart + bytes.length + 1;
        } catch (err) {
          rejected = { at: lineStart, err };
        }
        lineStart += bytes.length + 1;
        from = nl + 1;
      }
      if (from < n) pending.push(Buffer.from(chunk.subarray(from, n)));
    }
    return goodBytes; // a torn tail (no newline, or a last line `visit` refused) lies beyond
  } finally {
    closeSync(fd);
  }
}

/** The text of `length` bytes at `offset` of the file open as `fd` (`path`, for the error when it is shorter). */
export function readTextAt(fd: number, offset: number, length: number, path: string): string {
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, offset + got);
    if (n === 0) throw new Error(`${path} ends before byte ${offset + length}`);
    got += n;
  }
  return buf.toString('utf8');
}

/** Reads the complete lines of `path` (none when it does not exist) and how many bytes they span. */
function readLines(path: string, check: (line: string) => void): { lines: string[]; goodBytes: number } {
  const lines: string[] = [];
  const goodBytes = scanLines(path, (line) => {
    check(line);
    lines.push(line);
  });
  return { lines, goodBytes };
}

/** An open journal file. */
export class LineJournal {
  private fd: number | null;
  private count: number;
  /** lines appended since open, never reset (what a sync covers) */
  private appended = 0;
  private waiters: { upTo: number; resolve: () => void }[] = [];
  private syncing = false;
  /** bytes in the file: where the next line starts */
  private bytes: number;

  private constructor(
    readonly path: string,
    fd: number,
    count: number,
    bytes: number,
  ) {
    this.fd = fd;
    this.count = count;
    this.bytes = bytes;
  }

  /**
   * Opens (creating) the journal, returning its lines. `check` validates a line (default: it
   * parses as JSON); a line it rejects is a torn tail when it is the last one, damage otherwise.
   */
  static open(path: string, check: (line: string) => void = (l) => void JSON.parse(l)): { journal: LineJournal; lines: string[] } {
    mkdirSync(dirname(path), { recursive: true });
    const { lines, goodBytes } = readLines(path, check);
    const fd = openSync(path, 'a+');
    ftruncateSync(fd, goodBytes);
    return { journal: new LineJournal(path, fd, lines.length, goodBytes), lines };
  }

  /**
   * Opens (creating) the journal like `open`, handing each line to `visit` as it is read instead of
   * returning them all: replaying a journal of any size holds one line at a time. `visit` throwing
   * is a torn tail on the last line, damage elsewhere.
   */
  static openEach(path: string, visit: (line: string, at: number) => void): LineJournal {
    mkdirSync(dirname(path), { recursive: true });
    let count = 0;
    const goodBytes = scanLines(path, (line, at) => {
      visit(line, at);
      count++;
    });
    const fd = openSync(path, 'a+');
    ftruncateSync(fd, goodBytes);
    return new LineJournal(path, fd, count, goodBytes);
  }

  /** Hands each complete line of a journal to `visit` without opening it for writing (see `read`); returns how many there were. */
  static readEach(path: string, visit: (line: string) => void): number {
    let count = 0;
    scanLines(path, (line) => {
      visit(line);
      count++;
    });
    return count;
  }

  /**
   * Reads the complete lines of a journal without opening it for writing (an operator's read of
   * a file a running process owns: a torn last line is skipped, the file is left as it is).
   */
  static read(path: string, check: (line: string) => void = (l) => void JSON.parse(l)): string[] {
    return readLines(path, check).lines;
  }

  /** Lines written since the last rewrite (or open). */
  get length(): number {
    return this.count;
  }

  /** Where the next line appended will start, in bytes (see `readAt`). */
  get end(): number {
    return this.bytes;
  }

  /**
   * The text of `length` bytes at `offset` of the file, read back (docs/operations.md#memory). A line
   * appended is readable at once, synced or not: it is in the file (the page cache) when `append` returns.
   */
  readAt(offset: number, length: number): string {
    if (this.fd === null) throw new Error(`${this.path} is closed`);
    return readTextAt(this.fd, offset, length, this.path);
  }

  /** Appends one line (into the page cache: it survives the process being killed, not the machine failing). */
  append(line: string): void {
    if (this.fd === null) throw new Error(`${this.path} is closed`);
    if (line.includes('\n')) throw new Error('a journal line must not contain a newline');
    const bytes = Buffer.from(`${line}\n`, 'utf8');
    writeSync(this.fd, bytes);
    this.bytes += bytes.length;
    this.count++;
    this.appended++;
  }

  /** Appends one line and resolves once it is on disk (group commit: see the file comment). */
  appendDurably(line: string): Promise<void> {
    this.append(line);
    const upTo = this.appended;
    return new Promise((resolve) => {
      this.waiters.push({ upTo, resolve });
      this.kickSync();
    });
  }

  /** Starts an fdatasync covering every line appended so far, unless one is running (it starts the next when done). */
  private kickSync(): void {
    if (this.syncing || this.waiters.length === 0 || this.fd === null) return;
    this.syncing = true;
    const fd = this.fd;
    const upTo = this.appended;
    fdatasync(fd, (err) => {
      this.syncing = false;
      // a rewrite closed this fd meanwhile: it synced the state itself and released the waiters
      if (err && (this.fd !== fd || err.code === 'EBADF')) return this.kickSync();
      // the disk failed: stop the process rather than tell anyone a line is durable
      if (err) throw err;
      this.release(upTo);
      this.kickSync();
    });
  }

  /** Resolves the waiters whose lines are durable. */
  private release(upTo: number): void {
    const done = this.waiters.filter((w) => w.upTo <= upTo);
    this.waiters = this.waiters.filter((w) => w.upTo > upTo);
    for (const w of done) w.resolve();
  }

  /** Waits until every appended line is on disk. */
  sync(): void {
    if (this.fd !== null) fdatasyncSync(this.fd);
  }

  /** Empties the file (its content was folded somewhere durable). */
  truncate(): void {
    if (this.fd === null) return;
    ftruncateSync(this.fd, 0);
    fsyncSync(this.fd);
    this.count = 0;
    this.bytes = 0;
    this.release(this.appended); // folded into something durable by the caller
  }

  /** Replaces the whole file with `lines` atomically (write aside, fsync, rename), then appends after them. */
  rewrite(lines: readonly string[]): void {
    const text = lines.length > 0 ? `${lines.join('\n')}\n` : '';
    // mode 0666 less the umask, as the journal was created
    writeFileAtomicallySync(this.path, text, 0o666);
    const bytes = Buffer.byteLength(text);
    if (this.fd !== null) closeSync(this.fd);
    this.fd = openSync(this.path, 'a+');
    this.count = lines.length;
    this.bytes = bytes;
    // the new file holds the state every appended line led to, and it is on disk
    this.release(this.appended);
  }

  /** Syncs and closes the file (lines still waiting for a sync are durable then). */
  close(): void {
    if (this.fd === null) return;
    fdatasyncSync(this.fd);
    closeSync(this.fd);
    this.fd = null;
    this.release(this.appended);
  }
}
