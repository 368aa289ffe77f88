import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The README and docs/: every relative link reaches a file, and every #anchor a heading of
 * the file it names (as GitHub makes anchors of headings). The README stays short enough to
 * read in ten minutes; the references live in docs/.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DOCUMENTS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** GitHub's anchor for a heading: lowercased, punctuation dropped, spaces as hyphens. */
export function slugOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(path: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let inCode = false;
  for (const line of readFileSync(join(ROOT, path), 'utf8').split('\n')) {
    if (line.startsWith('```')) inCode = !inCode;
    const heading = inCode ? null : /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const slug = slugOf(heading[1] ?? '');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Relative links of a Markdown file, outside code blocks: [text](target). */
function linksOf(path: string): string[] {
  const text = readFileSync(join(ROOT, path), 'utf8').replace(/```[\s\S]*?```/g, '');
  return [...text.matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? '').filter((target) => !/^[a-z]+:/.test(target));
}

describe('documentation', () => {
  it('finds the README and the documents in docs/', () => {
    expect(DOCUMENTS).toContain('docs/runbook.md');
    expect(DOCUMENTS.length).toBeGreaterThan(5);
  });

  it.each(DOCUMENTS)('%s: every relative link reaches a file, and every anchor a heading', (path) => {
    const broken: string[] = [];
    for (const target of linksOf(path)) {
      const [file = '', anchor] = target.split('#');
      const resolved = file === '' ? path : relative(ROOT, normalize(join(ROOT, dirname(path), file)));
      if (!existsSync(join(ROOT, resolved))) broken.push(`${target}: no file ${resolved}`);
      else if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor))
        broken.push(`${target}: no heading #${anchor} in ${resolved}`);
    }
    expect(broken).toEqual([]);
  });

  it('keeps the README under 400 lines', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThan(400);
  });

  it('makes anchors as GitHub does', () => {
    expect(slugOf('`GET /api/v3/walletStates?address=…`')).toBe('get-apiv3walletstatesaddress');
    expect(slugOf('Monitoring stack (docker-compose)')).toBe('monitoring-stack-docker-compose');
  });
});
