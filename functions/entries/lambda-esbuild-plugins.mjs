// esbuild plugins for the Lambda bundle, named by sst.config.ts (`nodejs.plugins`): what wrangler.toml's [alias] and
// [[rules]] do for the worker. Plain JavaScript, because SST imports this file with `node` before it bundles.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath, URL } from 'node:url';

const ZOD_LOCALES = '../locales/index.js';
const STAND_IN = fileURLToPath(new URL('./no-zod-locales.ts', import.meta.url));
const ZOD_FOR_OPENAPI = fileURLToPath(new URL('./zod-for-openapi.ts', import.meta.url));

/**
 * zod's `z.locales` re-export pulls in 60+ message locales that the app never switches to; the stand-in is an empty
 * module. Only zod's own imports of that path are swapped (wrangler's alias swaps any importer's).
 * The filter takes every import and the callback tests the path: SST runs these plugins in its own host, which has
 * tested `filter` against something other than the import path, so a narrow filter would never fire there.
 * @type {import('esbuild').Plugin}
 */
const noZodLocales = {
  name: 'no-zod-locales',
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) =>
      args.path === ZOD_LOCALES && /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer) ? { path: STAND_IN } : undefined,
    );
  },
};

/**
 * @hono/zod-openapi's `import { z } from 'zod'` gets the stand-in whose `z` holds `ZodType` alone (the file says why),
 * as wrangler.toml's [alias] gives it to the worker. Only that package's import is swapped; ours keep zod's own index.
 * @type {import('esbuild').Plugin}
 */
const zodForOpenapi = {
  name: 'zod-for-openapi',
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) =>
      args.path === 'zod' && /[\\/]node_modules[\\/]@hono[\\/]zod-openapi[\\/]/.test(args.importer) ? { path: ZOD_FOR_OPENAPI } : undefined,
    );
  },
};

/**
 * `import text from './file?raw'` is the file's text (lib/console/page/script.ts: the console's browser script), as
 * vite gives it in the tests and wrangler's Text rule in the worker. The same every-import filter, for the same reason.
 * @type {import('esbuild').Plugin}
 */
const rawText = {
  name: 'raw-text',
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) =>
      args.path.endsWith('?raw')
        ? { path: resolve(args.resolveDir, args.path.slice(0, -'?raw'.length)), namespace: 'raw-text' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'raw-text' }, async (args) => ({
      contents: await readFile(args.path, 'utf8'),
      loader: 'text',
    }));
  },
};

export default [noZodLocales, zodForOpenapi, rawText];
