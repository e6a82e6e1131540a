/**
 * Comments cite the project's own documents (docs/contributing.md#style): every `docs/<file>.md#<anchor>`
 * cited anywhere in the tree names a document that exists and a heading it has, so a citation
 * never points at nothing after a document changes.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (m) anchors.add(slug(m[1] as string));
  }
  return anchors;
}

describe('citations of docs/', () => {
  it('point at documents and headings that exist', () => {
    const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { encoding: 'utf8' })
      .split('\n')
      .filter((f) => /\.(ts|js|md|yml)$/.test(f) && existsSync(f));
    const broken: string[] = [];
    let cited = 0;
    for (const file of files) {
      for (const m of readFileSync(file, 'utf8').matchAll(/docs\/([\w-]+\.md)(#[\w-]+)?/g)) {
        cited++;
        const doc = `docs/${m[1]}`;
        if (!existsSync(doc)) broken.push(`${file}: ${m[0]} (no such document)`);
        else if (m[2] && !anchorsOf(doc).has(m[2].slice(1))) broken.push(`${file}: ${m[0]} (no such heading)`);
      }
    }
    expect(cited).toBeGreaterThan(100);
    expect(broken).toEqual([]);
  });
});
