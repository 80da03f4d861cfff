// Builds the worker exactly as `wrangler deploy` would (dry run into a folder) and reads the runtime settings it deploys with.
import { execFile } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const run = promisify(execFile);

export const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

export interface BuiltWorker {
  scriptPath: string;
  bytes: number;
  /** Repository-relative paths of every source in the bundle (from its source map). */
  sources: string[];
  compatibilityDate: string;
  compatibilityFlags: string[];
}

export async function buildWorker(outDir: string): Promise<BuiltWorker> {
  const wrangler = join(REPO_ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
  await run(process.execPath, [wrangler, 'deploy', '--dry-run', '--outdir', outDir], {
    cwd: REPO_ROOT,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true' },
    timeout: 120_000,
  });
  const scriptPath = join(outDir, 'worker.js');
  const map = JSON.parse(await readFile(`${scriptPath}.map`, 'utf8')) as { sources: string[] };
  const toml = await readFile(join(REPO_ROOT, 'wrangler.toml'), 'utf8');
  return {
    scriptPath,
    bytes: (await stat(scriptPath)).size,
    sources: map.sources.map((source) => relative(REPO_ROOT, resolve(outDir, source))),
    ...compatibilityOf(toml),
  };
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
