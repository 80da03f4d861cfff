// Builds the worker exactly as `wrangler deploy` would (dry run into a folder) and reads what it would upload and how it runs.
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const run = promisify(execFile);

const REPO_ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

export interface BuiltWorker {
  scriptPath: string;
  /** The text modules uploaded beside the script (wrangler.toml's [[rules]]: the console's browser script), by path. */
  textModulePaths: string[];
  /** What wrangler uploads: the script and its text modules. */
  bytes: number;
  /** As wrangler reports it: the script and its text modules, together gzipped at zlib's default level. */
  gzipBytes: number;
  /** Repository-relative paths of every source in the bundle (from its source map). */
  sources: string[];
  /** Repository-relative input path → bytes it left in the minified script (esbuild's metafile). */
  inputBytes: Record<string, number>;
  /** The settings wrangler printed for the environment built, e.g. `APP_ENV ("staging")`; secrets are never among them. */
  bindingsReport: string;
  compatibilityDate: string;
  compatibilityFlags: string[];
}

export interface BuildWorkerOptions {
  /** A wrangler environment (`[env.<name>]`); the top level (prod) when omitted. */
  env?: string;
}

export async function buildWorker(outDir: string, options: BuildWorkerOptions = {}): Promise<BuiltWorker> {
  const wrangler = join(REPO_ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
  const metafile = join(outDir, 'bundle-meta.json');
  // `--env=` names the top level explicitly; with [env.staging] defined, wrangler warns when no environment is named.
  const args = ['deploy', '--dry-run', `--env=${options.env ?? ''}`, '--outdir', outDir, '--metafile', metafile];
  const { stdout } = await run(process.execPath, [wrangler, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true' },
    timeout: 120_000,
  });
  const scriptPath = join(outDir, 'worker.js');
  const code = await readFile(scriptPath);
  const textModulePaths = await textModulesIn(outDir, [scriptPath, `${scriptPath}.map`, metafile]);
  const upload = Buffer.concat([...(await Promise.all(textModulePaths.map((path) => readFile(path)))), code]);
  const map = JSON.parse(await readFile(`${scriptPath}.map`, 'utf8')) as { sources: string[] };
  const toml = await readFile(join(REPO_ROOT, 'wrangler.toml'), 'utf8');
  return {
    scriptPath,
    textModulePaths,
    bytes: upload.length,
    gzipBytes: gzipSync(upload).length,
    sources: map.sources.map((source) => relative(REPO_ROOT, resolve(outDir, source))),
    inputBytes: inputBytesOf(JSON.parse(await readFile(metafile, 'utf8')) as EsbuildMetafile),
    bindingsReport: stdout,
    ...compatibilityOf(toml),
  };
}

// Wrangler writes each module a rule matched as `<sha1>-<name>` beside the script, and a README.md; this repository's
// only rule is a Text one.
async function textModulesIn(outDir: string, known: string[]): Promise<string[]> {
  const names = (await readdir(outDir)).filter((name) => name !== 'README.md');
  return names.map((name) => join(outDir, name)).filter((path) => !known.includes(path));
}

interface EsbuildMetafile {
  outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
}

// The metafile names inputs relative to the working directory (the repository root) and outputs by path.
function inputBytesOf(meta: EsbuildMetafile): Record<string, number> {
  const script = Object.entries(meta.outputs).find(([path]) => path.endsWith('worker.js'));
  if (script === undefined) throw new Error('the esbuild metafile names no worker.js output');
  return Object.fromEntries(Object.entries(script[1].inputs).map(([path, input]) => [path, input.bytesInOutput]));
}

// Only the two top-level keys the runtime needs; the test must not pick up [vars] (APP_ENV=prod).
function compatibilityOf(toml: string): { compatibilityDate: string; compatibilityFlags: string[] } {
  const date = /^compatibility_date\s*=\s*"(\d{4}-\d{2}-\d{2})"/m.exec(toml)?.[1];
  if (date === undefined) throw new Error('wrangler.toml has no compatibility_date');
  const flags = /^compatibility_flags\s*=\s*\[([^\]]*)\]/m.exec(toml)?.[1];
  return {
    compatibilityDate: date,
    compatibilityFlags: flags === undefined ? [] : [...flags.matchAll(/"([^"]+)"/g)].map((m) => m[1]!),
  };
}
