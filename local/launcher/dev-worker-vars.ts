// The variables `npm run dev:worker` hands the worker under `wrangler dev`: the running stack's stores, the dev secrets.
import { join } from 'node:path';
import { fullEnvSchema } from '../../lib/config/schema.ts';
import { appSecrets, loadDevSecrets } from './dev-secrets.ts';
import { provideDevOperator } from './dev-operator.ts';
import { displayPath } from './data-dir.ts';
import { findRunningStack } from './stack-file.ts';
import { DEMO_TOKEN_TTL_SECONDS } from './seed.ts';
import { writePrivateFile } from './private-file.ts';

/** Beside dev-secrets.json: one per data folder, so two checkouts or two data folders never share one. */
export function devWorkerVarsFile(dataDir: string): string {
  return join(dataDir, 'dev-worker.vars');
}

/**
 * What the app under `npm start` runs with, in the same order of precedence: lib/config's variables set in this
 * environment (APP_ENV, KEY_PREFIX, REVOCATION_…, else the dev operator's digest), the stores npm start wrote to stack.json, then the dev secrets
 * (this environment's first, else dev-secrets.json). The launcher's own demo passwords stay out, as they do there.
 */
export async function devWorkerVars(dataDir: string, env: Record<string, string | undefined>): Promise<Record<string, string>> {
  const stack = await findRunningStack(dataDir);
  if (stack.kind === 'none') {
    throw new Error(`no npm start is running on ${displayPath(dataDir)}: start it first (or set RUNSTATE_DATA_DIR to its data folder)`);
  }
  if (stack.kind === 'stale') {
    throw new Error(`the npm start that wrote ${displayPath(join(dataDir, 'stack.json'))} (pid ${stack.pid}) is gone: start it again`);
  }
  const secrets = appSecrets((await loadDevSecrets(dataDir, env)).values);
  const fromEnv: Record<string, string> = {};
  for (const name of Object.keys(fullEnvSchema().shape)) {
    const value = env[name];
    // PORT is the Node server's; wrangler dev has its own.
    if (name !== 'PORT' && value !== undefined && value !== '') fromEnv[name] = value;
  }
  // As npm start runs the app: its 12-hour demo tokens must pass here too (local/launcher/start.ts), and in dev its
  // operator secret (the digest only; local/launcher/dev-operator.ts).
  return {
    APP_ENV: 'dev',
    ACCESS_TOKEN_MAX_LIFETIME_SECONDS: String(DEMO_TOKEN_TTL_SECONDS),
    ...provideDevOperator(dataDir, env).env,
    ...fromEnv,
    ...stack.stores,
    ...secrets,
  };
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
