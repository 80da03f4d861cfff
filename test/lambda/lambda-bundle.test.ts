// The Lambda bundle built the way SST builds it (ops/build-lambda.ts: esbuild, ESM for Node) with the plugins
// sst.config.ts names: zod's locales stay out, as the worker's [alias] keeps them out of the Workers bundle.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin, type PluginBuild } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import lambdaPlugins from '../../functions/entries/lambda-esbuild-plugins.mjs';
import { buildLambda, SST_LIKE, writeLambda, type BuiltLambda } from '../../ops/build-lambda.ts';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Bundle {
  built: BuiltLambda;
  /** Every module esbuild read. */
  inputs: string[];
  /** Those that left code in the output (tree shaking drops the rest). */
  kept: string[];
}

async function bundle(plugins: Plugin[]): Promise<Bundle> {
  const built = await buildLambda({ plugins });
  return {
    built,
    inputs: built.sources,
    kept: Object.entries(built.inputBytes).flatMap(([input, bytes]) => (bytes > 0 ? [input] : [])),
  };
}

const zodLocales = (inputs: string[]): string[] => inputs.filter((input) => input.includes('zod/v4/locales/'));

let withPlugins: Bundle;
let outDir: string;

beforeAll(async () => {
  withPlugins = await bundle(lambdaPlugins);
  outDir = await mkdtemp(join(tmpdir(), 'runstate-lambda-'));
}, 60_000);

afterAll(async () => {
  if (outDir !== undefined) await rm(outDir, { recursive: true, force: true });
});

describe('the Lambda bundle', () => {
  it('carries no zod locale but the English zod configures itself, and the stand-in in their place', () => {
    expect(zodLocales(withPlugins.inputs)).toEqual([expect.stringMatching(/zod\/v4\/locales\/en\.js$/)]);
    expect(withPlugins.inputs).toContain('functions/entries/no-zod-locales.ts');
    console.log(`lambda bundle: ${(withPlugins.built.bytes / 1024).toFixed(1)} KiB`);
  });

  it("keeps out the parts of zod's classic API nothing calls: @hono/zod-openapi gets a `z` of ZodType alone", async () => {
    expect(withPlugins.inputs).toContain('functions/entries/zod-for-openapi.ts');
    // zod's JSON Schema reader and its compiler are reached only through the whole namespace.
    const unused = withPlugins.kept.filter((input) => /zod\/v4\/(classic\/from-json-schema|core\/compile)/.test(input));
    expect(unused).toEqual([]);
    const plain = await bundle([]);
    expect(plain.kept.filter((input) => input.includes('zod/v4/classic/from-json-schema'))).not.toEqual([]);
  });

  it('would carry every locale without the plugins (the alias is what keeps them out)', async () => {
    const plain = await bundle([]);
    expect(zodLocales(plain.inputs).length).toBeGreaterThan(40);
    expect(plain.built.bytes - withPlugins.built.bytes).toBeGreaterThan(100 * 1024);
  });

  it("answers a resolve the way SST's plugin host asks it (every import offered, the callback decides)", async () => {
    const registered: Array<{ filter: RegExp; callback: (args: Record<string, string>) => unknown }> = [];
    const host = {
      onResolve: (options: { filter: RegExp }, callback: (args: Record<string, string>) => unknown) =>
        registered.push({ ...options, callback }),
      onLoad: () => undefined,
    };
    for (const plugin of lambdaPlugins) await plugin.setup(host as unknown as PluginBuild);
    expect(registered).toHaveLength(3);
    const [resolver, zodForOpenapi, rawText] = registered;
    // Matched whatever string the host tests it against.
    expect(resolver!.filter.test('undefined')).toBe(true);
    const zodImporter = join(REPO_ROOT, 'node_modules/zod/v4/classic/external.js');
    expect(resolver!.callback({ path: '../locales/index.js', importer: zodImporter, kind: 'import-statement' })).toEqual({
      path: join(REPO_ROOT, 'functions/entries/no-zod-locales.ts'),
    });
    // The same relative path from anyone else is left to esbuild.
    expect(resolver!.callback({ path: '../locales/index.js', importer: join(REPO_ROOT, 'lib/x/y.ts') })).toBeUndefined();
    expect(resolver!.callback({ path: 'zod', importer: zodImporter })).toBeUndefined();
    // `zod` as @hono/zod-openapi imports it, and only there, is the stand-in.
    expect(zodForOpenapi!.filter.test('undefined')).toBe(true);
    const openapiImporter = join(REPO_ROOT, 'node_modules/@hono/zod-openapi/dist/index.mjs');
    expect(zodForOpenapi!.callback({ path: 'zod', importer: openapiImporter })).toEqual({
      path: join(REPO_ROOT, 'functions/entries/zod-for-openapi.ts'),
    });
    expect(zodForOpenapi!.callback({ path: 'zod', importer: join(REPO_ROOT, 'lib/x/y.ts') })).toBeUndefined();
    expect(zodForOpenapi!.callback({ path: 'zod/v4', importer: openapiImporter })).toBeUndefined();
    // A `?raw` import, and only that, becomes the file's text.
    expect(rawText!.filter.test('undefined')).toBe(true);
    const pageDir = join(REPO_ROOT, 'lib/console/page');
    expect(rawText!.callback({ path: './browser/console.js?raw', resolveDir: pageDir })).toEqual({
      path: join(pageDir, 'browser/console.js'),
      namespace: 'raw-text',
    });
    expect(rawText!.callback({ path: './browser/console.js', resolveDir: pageDir })).toBeUndefined();
  });

  it("carries the console's browser script as its source file's text", async () => {
    const result = await build({
      ...SST_LIKE,
      entryPoints: [join(REPO_ROOT, 'lib/console/page/script.ts')],
      plugins: lambdaPlugins,
      write: false,
    });
    const file = join(outDir, 'console-script.mjs');
    await writeFile(file, result.outputFiles[0]!.contents);
    const { CONSOLE_SCRIPT } = (await import(file)) as { CONSOLE_SCRIPT: string };
    expect(CONSOLE_SCRIPT).toBe(await readFile(join(REPO_ROOT, 'lib/console/page/browser/console.js'), 'utf8'));
  });

  it("carries @simplewebauthn/browser's bundle as the package's file, read by its path in node_modules", async () => {
    const result = await build({
      ...SST_LIKE,
      entryPoints: [join(REPO_ROOT, 'lib/console/page/webauthn-script.ts')],
      plugins: lambdaPlugins,
      write: false,
    });
    const file = join(outDir, 'webauthn-script.mjs');
    await writeFile(file, result.outputFiles[0]!.contents);
    const { WEBAUTHN_SCRIPT } = (await import(file)) as { WEBAUTHN_SCRIPT: string };
    expect(WEBAUTHN_SCRIPT).toBe(
      await readFile(join(REPO_ROOT, 'node_modules/@simplewebauthn/browser/dist/bundle/index.umd.min.js'), 'utf8'),
    );
  });

  it("carries ua-parser-js's browser build, read by its path in node_modules, in its wrapper", async () => {
    const result = await build({
      ...SST_LIKE,
      entryPoints: [join(REPO_ROOT, 'lib/console/page/ua-parser-script.ts')],
      plugins: lambdaPlugins,
      write: false,
    });
    const file = join(outDir, 'ua-parser-script.mjs');
    await writeFile(file, result.outputFiles[0]!.contents);
    const { UA_PARSER_SCRIPT } = (await import(file)) as { UA_PARSER_SCRIPT: string };
    const shipped = await readFile(join(REPO_ROOT, 'node_modules/ua-parser-js/dist/ua-parser.min.js'), 'utf8');
    expect(UA_PARSER_SCRIPT).toBe(`(function (exports, module, define) {\n${shipped}\n})();\n`);
  });

  it('loads under Node and exports the HTTP handler and the scheduled one', async () => {
    const module = (await import(await writeLambda(withPlugins.built, join(outDir, 'lambda')))) as Record<string, unknown>;
    expect(typeof module.handler).toBe('function');
    expect(typeof module.scheduled).toBe('function');
  });

  it('puts each function in a file of its own, which the entry imports only on demand', () => {
    const { files, entry } = withPlugins.built;
    const text = (name: string) => new TextDecoder().decode(files.find((file) => file.name === name)!.contents);
    // What Node reads at load: the entry and the chunks it imports statically (import … from "./chunk-….mjs").
    const loaded = new Set<string>();
    const pending = [entry];
    while (pending.length > 0) {
      const name = pending.pop()!;
      if (loaded.has(name)) continue;
      loaded.add(name);
      for (const match of text(name).matchAll(/import(?:[^"'()]*?from)?\s*["']\.\/([^"']+)["']/g)) pending.push(match[1]!);
    }
    const onDemand = files.filter((file) => !loaded.has(file.name));
    // Sign-in's routes (its summary text) are in a file loaded on demand, not in one read at load.
    expect(onDemand.some((file) => text(file.name).includes('Sign in with email and password'))).toBe(true);
    expect([...loaded].some((name) => text(name).includes('Sign in with email and password'))).toBe(false);
    const loadedBytes = files.filter((file) => loaded.has(file.name)).reduce((sum, file) => sum + file.contents.length, 0);
    console.log(`lambda bundle: ${(loadedBytes / 1024).toFixed(1)} KiB read at load, in ${loaded.size} of ${files.length} files`);
  });
});
