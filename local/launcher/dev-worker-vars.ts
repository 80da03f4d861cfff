// The variables `npm run dev:worker` hands the worker under `wrangler dev`: the running stack's stores, the dev secrets.
import { join } from 'node:path';
import { provideDevOperator } from './dev-operator.ts';
import { localStackEnv } from './stack-env.ts';
import { writePrivateFile } from './private-file.ts';

/** Beside dev-secrets.json: one per data folder, so two checkouts or two data folders never share one. */
export function devWorkerVarsFile(dataDir: string): string {
  return join(dataDir, 'dev-worker.vars');
}

/** What the app under `npm start` runs with (local/launcher/stack-env.ts), but PORT: that is the Node server's, wrangler dev has its own. */
export async function devWorkerVars(dataDir: string, env: Record<string, string | undefined>): Promise<Record<string, string>> {
  const { PORT: _port, ...vars } = (await localStackEnv(dataDir, env)).vars;
  // In dev, npm start's operator secret by its digest only (local/launcher/dev-operator.ts); a configured one wins.
  return { ...provideDevOperator(dataDir, env).env, ...vars };
}

/**
 * Writes `vars` as a dotenv file for `wrangler dev --env-file`: mode 0600 from creation, written then renamed. Values are
 * single-quoted (taken literally); one that a dotenv file cannot hold is refused by its name alone.
 */
export async function writeDevWorkerVars(file: string, vars: Record<string, string>): Promise<void> {
  const lines = ['# Written by `npm run dev:worker` for wrangler dev; holds secrets (mode 0600); removed when it stops.'];
  for (const [name, value] of Object.entries(vars)) {
    if (/['\r\n]/.test(value)) throw new Error(`${name} holds a quote or a line break, which a .dev.vars file cannot carry`);
    lines.push(`${name}='${value}'`);
  }
  await writePrivateFile(file, `${lines.join('\n')}\n`);
}
