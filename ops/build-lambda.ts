// Builds the Lambda entry the way `sst deploy` does (SST's Node builder: esbuild, ESM for Node, minified, names kept)
// with the plugins sst.config.ts names, and reads what it would upload.
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type BuildOptions, type Plugin } from 'esbuild';
import lambdaPlugins from '../functions/entries/lambda-esbuild-plugins.mjs';

const REPO_ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

/**
 * SST's options for `sst deploy` (its pkg/runtime/node/build.go: ESM, minify on, no source map). SST sets `keepNames`
 * itself and offers no setting to turn it off, so the Lambda bundle keeps its class and function names.
 */
export const SST_LIKE: BuildOptions = {
  entryPoints: [join(REPO_ROOT, 'functions/entries/lambda.ts')],
  absWorkingDir: REPO_ROOT,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'esnext',
  mainFields: ['module', 'main'],
  keepNames: true,
  minify: true,
  external: ['sharp', 'pg-native'],
  logLevel: 'silent',
  banner: {
    js: [
      `import { createRequire as topLevelCreateRequire } from 'module';`,
      `const require = topLevelCreateRequire(import.meta.url);`,
      `import { fileURLToPath as topLevelFileUrlToPath, URL as topLevelURL } from "url"`,
      `const __filename = topLevelFileUrlToPath(import.meta.url)`,
      `const __dirname = topLevelFileUrlToPath(new topLevelURL(".", import.meta.url))`,
    ].join('\n'),
  },
};

export interface BuiltLambda {
  code: Uint8Array;
  bytes: number;
  /** At zlib's default level, as the deployment zip roughly carries it. */
  gzipBytes: number;
  /** Every module esbuild read, as its metafile names them (repository-relative, or a plugin's namespace:path). */
  sources: string[];
  /** Input path → bytes it left in the minified output (esbuild's metafile). */
  inputBytes: Record<string, number>;
}

/** The Lambda bundle in memory; `plugins` defaults to those sst.config.ts names. */
export async function buildLambda(options: { plugins?: Plugin[]; entry?: string } = {}): Promise<BuiltLambda> {
  const result = await build({
    ...SST_LIKE,
    ...(options.entry !== undefined ? { entryPoints: [options.entry] } : {}),
    plugins: options.plugins ?? lambdaPlugins,
    metafile: true,
    write: false,
  });
  const output = result.outputFiles[0];
  if (output === undefined) throw new Error('esbuild wrote no output');
  const inputs = Object.values(result.metafile.outputs)[0]?.inputs ?? {};
  return {
    code: output.contents,
    bytes: output.contents.length,
    gzipBytes: gzipSync(output.contents).length,
    sources: Object.keys(result.metafile.inputs),
    inputBytes: Object.fromEntries(Object.entries(inputs).map(([path, input]) => [path, input.bytesInOutput])),
  };
}
