// The figures the docs quote from the code (`<!-- gen:<name> -->` in the Markdown, ops/docs/figures.ts) are what
// `npm run docs:generate` writes: a stale page fails here, naming itself and the command that fixes it.
import { describe, expect, it } from 'vitest';
import { THROTTLE_LIMITS } from '../../lib/runtime/throttle/limits.ts';
import { depsFields } from '../../ops/docs/deps-fields.ts';
import { fillMarkers } from '../../ops/docs/markers.ts';
import { generatedPages } from '../../ops/docs/pages.ts';
import { throttleTable } from '../../ops/docs/throttle-table.ts';
import { offlineDeps } from '../support/offline-deps.ts';

const pages = await generatedPages();

describe('the generated figures in the docs', () => {
  it.each(pages.map((page) => [page.path, page] as const))('%s is what `npm run docs:generate` writes', (path, page) => {
    expect(page.current === page.written, `${path} is stale: run \`npm run docs:generate\` and commit it`).toBe(true);
  });

  it('cover the figures that drifted when typed by hand', () => {
    const marked = new Map(pages.map((page) => [page.path, page.names]));
    expect(marked.get('docs/design/limits.md')).toEqual(expect.arrayContaining(['throttle-table', 'rate-limit-table']));
    expect(marked.get('docs/design/layers.md')).toContain('deps-fields');
    expect(marked.get('docs/design/revocation.md')).toContain('routes.bearer');
    expect(marked.get('docs/design/local-stack.md')).toContain('cluster.integration-files');
    expect(marked.get('docs/deploy.md')).toEqual(expect.arrayContaining(['openapi.size', 'openapi.gzip-size']));
    expect(marked.get('docs/design/mfa.md')).toEqual(expect.arrayContaining(['rt:mfa.recover:redis', 'rt:mfa.recover:pg']));
  });

  it("list Deps' fields as a real Deps object has them", () => {
    expect(depsFields().map((field) => field.name)).toEqual(Object.keys(offlineDeps()));
  });

  it('give every limited action its row, with its limit', () => {
    const table = throttleTable();
    for (const [action, { limit }] of Object.entries(THROTTLE_LIMITS))
      expect(table).toMatch(new RegExp(`\\| \`${action}\` \\|[^|]*\\| ${limit} \\|`));
  });

  it('refuse a marker that would break its page: unknown, unclosed, or an inline figure opening a line', () => {
    const figures = new Map([['n', { inline: '3' }]]);
    expect(fillMarkers('about <!-- gen:n -->2<!-- /gen --> routes', figures, 'p.md')).toBe('about <!-- gen:n -->3<!-- /gen --> routes');
    expect(() => fillMarkers('about <!-- gen:m -->2<!-- /gen -->', figures, 'p.md')).toThrow('names no figure');
    expect(() => fillMarkers('about <!-- gen:n -->2<!-- /gen\n--> and <!-- gen:n -->2<!-- /gen -->', figures, 'p.md')).toThrow(
      'without its',
    );
    expect(() => fillMarkers('about\n  <!-- gen:n -->2<!-- /gen --> routes', figures, 'p.md')).toThrow('opens a line');
  });
});
