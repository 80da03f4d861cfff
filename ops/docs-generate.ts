// `npm run docs:generate`: writes docs/keys.md and every figure the docs mark with `<!-- gen:<name> -->`
// (ops/docs/figures.ts) from the code; test/unit/docs-generated.test.ts fails while a page is stale.
import { writeFileSync } from 'node:fs';
import { generatedPages, pageUrl } from './docs/pages.ts';
import { KEYS_DOC_PATH, renderKeysDoc } from './keys-doc/render.ts';

writeFileSync(KEYS_DOC_PATH, await renderKeysDoc());
const pages = await generatedPages();
for (const page of pages) if (page.current !== page.written) writeFileSync(pageUrl(page.path), page.current);
const changed = pages.filter((page) => page.current !== page.written).map((page) => page.path);
console.log(`docs:generate: docs/keys.md and ${pages.length} pages with figures; rewrote ${changed.length ? changed.join(', ') : 'none'}`);
