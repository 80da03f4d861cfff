// Builds the Lambda entry the way `sst deploy` does (SST's Node builder: esbuild, ESM for Node, minified, names kept,
// split at dynamic imports) with the plugins sst.config.ts names, and reads what it would upload.
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type BuildOptions, type Plugin } from 'esbuild';
import lambdaPlugins from '../functions/entries/lambda-esbuild-plugins.mjs';

const REPO_ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

/**
 * SST's options for `sst deploy` (its pkg/runtime/node/build.go: ESM, minify on, no source map). SST sets `keepNames`
 * itself and offers no setting to turn it off, so the Lambda bundle keeps its class and function names. Splitting is
 * sst.config.ts's `nodejs.splitting`: each module reached only through a dynamic `import()` (a function of
 * functions/app.ts, the cron's tasks, the Neon driver) goes into a file of its own, which Node reads and compiles only
 * when that import runs, so a cold start compiles the code its first request needs rather than all of it.
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
  splitting: true,
  // Only names the files (nothing is written here): the entry `lambda.mjs` and its chunks beside it, as SST's `.mjs`.
  outdir: join(REPO_ROOT, 'dist/lambda'),
  outExtension: { '.js': '.mjs' },
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
  /** The entry (`lambda.mjs`) and the chunks it imports, statically or on demand, by file name; all in one folder. */
  files: Array<{ name: string; contents: Uint8Array }>;
  /** The file whose `handler` and `scheduled` the functions name. */
  entry: string;
  /** All files together. */
  bytes: number;
  /** Each file at zlib's default level, summed, as the deployment zip roughly carries them. */
  gzipBytes: number;
  /** Every module esbuild read, as its metafile names them (repository-relative, or a plugin's namespace:path). */
  sources: string[];
  /** Input path → bytes it left in the minified output, over all files (esbuild's metafile). */
  inputBytes: Record<string, number>;
}

/** The Lambda bundle in memory; `plugins` defaults to those sst.config.ts names. */
export async function buildLambda(options: { plugins?: Plugin[]; entry?: string } = {}): Promise<BuiltLambda> {
  const entryPoint = options.entry ?? join(REPO_ROOT, 'functions/entries/lambda.ts');
  const result = await build({
    ...SST_LIKE,
    entryPoints: [entryPoint],
    plugins: options.plugins ?? lambdaPlugins,
    metafile: true,
    write: false,
  });
  const files = result.outputFiles.map((file) => ({ name: basename(file.path), contents: file.contents }));
  // Each file loaded on demand is an entry point too, in esbuild's metafile; this is the one built from `entryPoint`.
  const entry = Object.entries(result.metafile.outputs).find(([, output]) => output.entryPoint === relative(REPO_ROOT, entryPoint))?.[0];
  if (entry === undefined) throw new Error('esbuild wrote no entry');
  const inputBytes: Record<string, number> = {};
  for (const output of Object.values(result.metafile.outputs)) {
    for (const [path, input] of Object.entries(output.inputs)) inputBytes[path] = (inputBytes[path] ?? 0) + input.bytesInOutput;
  }
  return {
    files,
    entry: basename(entry),
    bytes: files.reduce((sum, file) => sum + file.contents.length, 0),
    gzipBytes: files.reduce((sum, file) => sum + gzipSync(file.contents).length, 0),
    sources: Object.keys(result.metafile.inputs),
    inputBytes,
  };
}

/** Writes the bundle's files into `dir` (created if need be); returns the entry's path. */
export async function writeLambda(lambda: BuiltLambda, dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  await Promise.all(lambda.files.map((file) => writeFile(join(dir, file.name), file.contents)));
  return join(dir, lambda.entry);
}
