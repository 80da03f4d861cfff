// Every file of this repository a Markdown page names in code format (`lib/…/x.ts`) exists: a renamed or removed file
// leaves no page pointing at nothing (doc-anchors.test.ts holds the links; this holds the names in prose).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url);
const SKIPPED = new Set(['node_modules', '.git', 'dist', '.data', '.wrangler', 'coverage']);
/** A path in backticks under one of the repository's folders, ending in a file's extension; placeholders excluded. */
const CITED = /`((?:lib|functions|local|ops|test|bench|compat|migrations|docs|types)\/[\w./-]+\.(?:ts|mjs|js|md|sql|json))`/g;

function markdownFiles(dir = ''): string[] {
  return readdirSync(new URL(dir || '.', ROOT), { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED.has(entry.name)) return [];
    const path = `${dir}${entry.name}`;
    if (entry.isDirectory()) return markdownFiles(`${path}/`);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

describe('file names in the docs', () => {
  it('name files that exist', () => {
    const missing = markdownFiles().flatMap((page) =>
      [...readFileSync(new URL(page, ROOT), 'utf8').matchAll(CITED)]
        .map((match) => match[1]!)
        // A folder's README may name its files from the folder (ops/README.md: `docs/figures.ts`); `NNNN` is a placeholder.
        .filter((path) => !path.includes('NNNN') && !existsSync(new URL(path, ROOT)) && !existsSync(new URL(path, new URL(page, ROOT))))
        .map((path) => `${page}: ${path}`),
    );
    expect(missing).toEqual([]);
  });
});
