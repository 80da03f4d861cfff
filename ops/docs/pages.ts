// The Markdown pages with generated figures, and each one as `npm run docs:generate` writes it: the figures filled in,
// formatted as prettier leaves it (`npm run lint` runs prettier --check).
import { readdirSync, readFileSync } from 'node:fs';
import * as prettier from 'prettier';
import { docFigures } from './figures.ts';
import { fillMarkers, markedNames } from './markers.ts';

const ROOT = new URL('../../', import.meta.url);
const SKIPPED = new Set(['node_modules', '.git', 'dist', '.data', '.wrangler', 'coverage']);

function markdownFiles(dir = ''): string[] {
  return readdirSync(new URL(dir || '.', ROOT), { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED.has(entry.name)) return [];
    const path = `${dir}${entry.name}`;
    if (entry.isDirectory()) return markdownFiles(`${path}/`);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

export interface GeneratedPage {
  /** Relative to the repository's root. */
  path: string;
  /** The figures it marks. */
  names: string[];
  written: string;
  current: string;
}

export async function generatedPages(): Promise<GeneratedPage[]> {
  const marked = markdownFiles()
    .map((path) => ({ path, written: readFileSync(new URL(path, ROOT), 'utf8') }))
    .filter((page) => markedNames(page.written).length > 0);
  const figures = await docFigures();
  return Promise.all(
    marked.map(async ({ path, written }) => {
      const filepath = new URL(path, ROOT).pathname;
      const options = { ...(await prettier.resolveConfig(filepath)), filepath };
      const current = await prettier.format(fillMarkers(written, figures, path), options);
      return { path, names: markedNames(written), written, current };
    }),
  );
}

export const pageUrl = (path: string) => new URL(path, ROOT);
