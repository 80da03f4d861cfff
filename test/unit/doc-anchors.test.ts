// Every doc link in code and docs resolves (the file exists, the anchor is one of its headings), and nothing cites
// a document a reader of this repository cannot open (requirement seeds, issue numbers, notes kept elsewhere).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SELF = relative(ROOT, fileURLToPath(import.meta.url));
const CODE_FOLDERS = ['lib', 'functions', 'local', 'ops', 'test', 'bench', 'compat'];
const CONFIG_FILES = ['.ci/run', 'wrangler.toml'];
// docs/pending/ holds notes for the integrator, written against the old single design.md and deleted once folded in.
const SKIPPED = new Set(['node_modules', '.git', 'dist', '.data', '.wrangler', 'coverage', 'docs/pending']);

function walk(dir: string, keep: (path: string) => boolean): string[] {
  if (!existsSync(join(ROOT, dir))) return [];
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = dir === '' ? name : `${dir}/${name}`;
    if (SKIPPED.has(name) || SKIPPED.has(path)) return [];
    if (statSync(join(ROOT, path)).isDirectory()) return walk(path, keep);
    return keep(path) ? [path] : [];
  });
}

/** The files whose text may cite a doc: code (comments and strings alike), every Markdown file, the deploy config. */
const markdownFiles = walk('', (path) => path.endsWith('.md'));
const codeFiles = [
  ...CODE_FOLDERS.flatMap((folder) => walk(folder, (path) => path.endsWith('.ts'))),
  ...readdirSync(ROOT).filter((name) => name.endsWith('.ts')),
  ...CONFIG_FILES,
].filter((path) => path !== SELF);

/** GitHub's heading anchors: lowercase, punctuation but hyphens and underscores dropped, spaces to hyphens, -1, -2 for repeats. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = heading[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
      .replace(/ /g, '-');
    const repeats = seen.get(base) ?? 0;
    seen.set(base, repeats + 1);
    anchors.add(repeats === 0 ? base : `${base}-${repeats}`);
  }
  return anchors;
}

interface Link {
  from: string;
  target: string;
  /** Where the path may be found: next to the citing file for Markdown links, the repository root first otherwise. */
  bases: string[];
}

/** `[text](path.md#anchor)`, `[text](#anchor)`, `[text](folder/)` in Markdown; any relative target must exist. */
const MARKDOWN_LINK = /\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;
/** `docs/x.md#anchor`, `../x.md`, `x.md#anchor` in prose, comments and strings; a bare `x.md` is a name, not a link. */
const BARE_PATH = /(?<![\w/.-])((?:\.{1,2}\/)*(?:[\w.-]+\/)+[\w.-]+\.md|[\w.-]+\.md(?=#))(#[\w-]+)?(?![\w/-])/g;
const ABSOLUTE_URL = /\b[a-z][a-z0-9+.-]*:\/\/[^\s)>'"`]+/gi;

function linksIn(path: string, text: string): Link[] {
  const here = dirname(path);
  const links: Link[] = [];
  let rest = text.replace(ABSOLUTE_URL, ' ');
  if (path.endsWith('.md')) {
    for (const match of rest.matchAll(MARKDOWN_LINK)) {
      const target = match[1]!;
      if (/^[a-z]+:/i.test(target)) continue;
      links.push({ from: path, target, bases: [here] });
    }
    rest = rest.replace(MARKDOWN_LINK, ' ');
  }
  for (const match of rest.matchAll(BARE_PATH)) {
    links.push({ from: path, target: match[1]! + (match[2] ?? ''), bases: ['.', here] });
  }
  return links;
}

const anchorsOf = new Map<string, Set<string>>();
function brokenReason(link: Link): string | null {
  const [pathPart, anchor] = link.target.split('#') as [string, string | undefined];
  const candidates = pathPart === '' ? [link.from] : link.bases.map((base) => join(base, decodeURI(pathPart)));
  const file = candidates.find((candidate) => existsSync(join(ROOT, candidate)));
  if (file === undefined) return 'no such file';
  if (anchor === undefined || !file.endsWith('.md')) return null;
  if (!anchorsOf.has(file)) anchorsOf.set(file, headingAnchors(readFileSync(join(ROOT, file), 'utf8')));
  return anchorsOf.get(file)!.has(anchor) ? null : `no heading #${anchor} in ${file}`;
}

const texts = [...markdownFiles, ...codeFiles].map((path) => ({ path, text: readFileSync(join(ROOT, path), 'utf8') }));
const links = texts.flatMap(({ path, text }) => linksIn(path, text));

/** Citations of documents outside the repository, each pattern with the wording it was made for. */
const OUTSIDE_CITATIONS: Array<[RegExp, string]> = [
  [/\bissues?\s+#?\d+\b(?!-)/i, 'Used from issue 6 (…)'],
  [/\b(?:backend-caching|key-conventions|redis-key-registry|redis-runtime-policy)\b/i, "key-conventions' tenant:{orgId}:settings"],
  [
    /\bseeds?\b\s*§|\b(?:caching|policy|registry|conventions|requirements?) seeds?\b/i,
    'the tenant is in the key (backend-caching seed §3)',
  ],
  [/\bthe seed'?s? (?:says|asks|requires|names|shape|partner|pattern|tenant-scoped)/i, "the seed's partner-config shape"],
  [
    /\.\.\/shared\b|\/work\/shared\b|kept outside the repository|\boriginal (?:design|plan)\b/i,
    'the original design (kept outside the repository)',
  ],
  [/\b(?:DESIGN|API|STYLE)\.md\b/, 'see DESIGN.md'],
];

describe('doc links', () => {
  it('finds the links it checks, in code and in docs', () => {
    expect(links.length).toBeGreaterThan(30);
    expect(links.filter((link) => link.from.endsWith('.ts')).length).toBeGreaterThan(20);
    expect(links.filter((link) => link.target.includes('#')).length).toBeGreaterThan(30);
  });

  it('follows GitHub heading slugs', () => {
    const anchors = headingAnchors(
      '# Sign-in — `POST /auth/login` (`lib/auth/`)\n## Syrve/iiko upstream\n## A\n## A\n```\n# not a heading\n```',
    );
    expect([...anchors]).toEqual(['sign-in--post-authlogin-libauth', 'syrveiiko-upstream', 'a', 'a-1']);
  });

  it('resolves every link to an existing file and heading', () => {
    const broken = links.flatMap((link) => {
      const reason = brokenReason(link);
      return reason === null ? [] : [`${link.from}: ${link.target} (${reason})`];
    });
    expect(broken.join('\n')).toBe('');
  });
});

describe('citations', () => {
  it('catches the wordings it is meant for', () => {
    for (const [pattern, example] of OUTSIDE_CITATIONS) expect(pattern.test(example), example).toBe(true);
    expect(OUTSIDE_CITATIONS.some(([pattern]) => pattern.test('Sign-in issues 15-minute access tokens'))).toBe(false);
  });

  it('cites only files of this repository', () => {
    const found = texts.flatMap(({ path, text }) =>
      text
        .split('\n')
        .flatMap((line, index) =>
          OUTSIDE_CITATIONS.some(([pattern]) => pattern.test(line)) ? [`${path}:${index + 1}: ${line.trim()}`] : [],
        ),
    );
    expect(found.join('\n')).toBe('');
  });
});
