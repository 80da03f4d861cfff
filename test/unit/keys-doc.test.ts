// docs/keys.md is generated from the key definitions and their notes: a stale copy fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KEY_REGISTRY } from '../../lib/keys/index.ts';
import { KEYS_DOC_PATH, renderKeysDoc } from '../../ops/keys-doc/render.ts';

describe('docs/keys.md', () => {
  it('is what `npm run docs:keys` writes from lib/keys/defs and ops/keys-doc/notes.ts', async () => {
    const written = readFileSync(KEYS_DOC_PATH, 'utf8');
    const current = await renderKeysDoc();
    expect(written === current, 'docs/keys.md is stale: run `npm run docs:keys` and commit it').toBe(true);
  });

  it('has one section per key, with its pattern and TTL', async () => {
    const doc = await renderKeysDoc();
    for (const entry of KEY_REGISTRY) {
      expect(doc, entry.name).toContain(`## ${entry.name}\n\n\`${entry.pattern}\``);
    }
    expect(doc).toMatch(/\[inviteObject\]\(#inviteobject\)\s*\|[^\n]*\|\s*exactly 10800 s/);
  });
});
