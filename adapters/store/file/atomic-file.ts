/**
 * Replacing a whole small file so that a crash leaves either the old content or the new one, never
 * a mix (docs/architecture.md#the-embedded-journal): the content goes to a temp file beside it
 * (unique name, the given mode), is fsynced, renamed over the file, and the directory is fsynced
 * so that the rename survives a crash too. A failed write removes its temp file.
 *
 * @example
 *   await writeFileAtomically(join(dataDir, 'keystore.json'), JSON.stringify(records)); // mode 0600
 *   writeFileAtomicallySync(infoPath, text, 0o644); // at start, before anything is served
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

/** fsync a directory so a rename inside it survives a crash. */
export function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

const tempOf = (file: string) => `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;

/** Replaces `file` with `content` atomically and durably [mode 0600]. */
export async function writeFileAtomically(file: string, content: string, mode = 0o600): Promise<void> {
  const tmp = tempOf(file);
  try {
    const handle = await open(tmp, 'w', mode);
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  syncDir(dirname(file));
}

/** The same, blocking: for start-up and small files written before anything is served [mode 0600]. */
export function writeFileAtomicallySync(file: string, content: string, mode = 0o600): void {
  const tmp = tempOf(file);
  try {
    writeFileSync(tmp, content, { mode, flush: true });
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  syncDir(dirname(file));
}
