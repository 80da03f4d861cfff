// esbuild plugins for the Lambda bundle, named by sst.config.ts (`nodejs.plugins`): what wrangler.toml's [alias] does
// for the worker. Plain JavaScript, because SST imports this file with `node` before it bundles.
import { fileURLToPath, URL } from 'node:url';

const ZOD_LOCALES = '../locales/index.js';
const STAND_IN = fileURLToPath(new URL('./no-zod-locales.ts', import.meta.url));

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

export default [noZodLocales];
