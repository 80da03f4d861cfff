// `npm run docs:keys`: writes docs/keys.md from the key definitions and their notes (test/unit/keys-doc.test.ts checks it is current).
import { writeFileSync } from 'node:fs';
import { KEYS_DOC_PATH, renderKeysDoc } from './keys-doc/render.ts';

writeFileSync(KEYS_DOC_PATH, await renderKeysDoc());
console.log('docs:keys: wrote docs/keys.md');
