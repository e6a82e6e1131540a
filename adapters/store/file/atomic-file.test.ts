import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomically, writeFileAtomicallySync } from './atomic-file.ts';
import { tempDir } from '../../../test/support/temp-dir.ts';

const dir = () => tempDir('atomic-file-');

describe('writing a file atomically', () => {
  it('replaces the whole content with the given mode (0600 unless told) and leaves no temp file, async and blocking alike', async () => {
    const d = dir();
    const file = join(d, 'keys.json');
    writeFileSync(file, 'old content that is longer than the new one');
    await writeFileAtomically(file, 'new');
    expect(readFileSync(file, 'utf8')).toBe('new');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const info = join(d, 'info.json');
    writeFileAtomicallySync(info, '{"a":1}', 0o644);
    expect(readFileSync(info, 'utf8')).toBe('{"a":1}');
    expect(statSync(info).mode & 0o777).toBe(0o644);
    expect(readdirSync(d).sort()).toEqual(['info.json', 'keys.json']);
  });

  it('a write that cannot replace its file fails, leaves it as it was and removes its temp file', async () => {
    const d = dir();
    const target = join(d, 'taken');
    mkdirSync(join(target, 'inside'), { recursive: true }); // a non-empty directory: the rename fails
    await expect(writeFileAtomically(target, 'x')).rejects.toThrow();
    expect(() => writeFileAtomicallySync(target, 'x')).toThrow();
    expect(readdirSync(d)).toEqual(['taken']);
    expect(readdirSync(target)).toEqual(['inside']);
  });
});
