// Node module hooks: `import text from './file?raw'` gives the file's text, as vite, the Lambda esbuild plugin and
// wrangler's [[rules]] do in the bundles (lib/console/page/script.ts). Plain JavaScript: Node loads hooks itself.
import { readFile } from 'node:fs/promises';
import { URL } from 'node:url';

/** @type {import('node:module').LoadHook} */
export async function load(url, context, nextLoad) {
  const target = new URL(url);
  if (target.protocol !== 'file:' || target.search !== '?raw') return nextLoad(url, context);
  target.search = '';
  const text = await readFile(target, 'utf8');
  return { format: 'module', source: `export default ${JSON.stringify(text)};`, shortCircuit: true };
}
