// The app's variables as the running `npm start` configures it, for a tool run beside it without its own: `npm run
// dev:worker` hands them to wrangler dev, `npm run cron -- --once` runs the scheduled function with them.
import { fullEnvSchema } from '../../lib/config/schema.ts';
import { appSecrets, loadDevSecrets } from './dev-secrets.ts';
import { requireRunningStack } from './stack-file.ts';
import { DEMO_TOKEN_TTL_SECONDS } from './seed.ts';

export interface LocalStackEnv {
  /** The launcher's process, for saying which stack is used. */
  pid: number;
  vars: Record<string, string>;
}

/** True when `env` names the app's stores itself: then a tool runs with it, as a deployment does, and looks for no stack. */
export function namesStores(env: Record<string, string | undefined>): boolean {
  return [env.UPSTASH_REDIS_REST_URL, env.DATABASE_URL].some((value) => value !== undefined && value !== '');
}

/**
 * In npm start's own order of precedence: lib/config's variables set in `env` (APP_ENV, KEY_PREFIX, REVOCATION_…) over
 * the key namespace npm start recorded, the stores it wrote to stack.json, then the dev secrets (`env`'s first, else
 * dev-secrets.json). The launcher's own demo passwords stay out, as they do there.
 */
export async function localStackEnv(dataDir: string, env: Record<string, string | undefined>): Promise<LocalStackEnv> {
  const stack = await requireRunningStack(dataDir);
  const secrets = appSecrets((await loadDevSecrets(dataDir, env)).values);
  const fromEnv: Record<string, string> = {};
  for (const name of Object.keys(fullEnvSchema().shape)) {
    const value = env[name];
    if (value !== undefined && value !== '') fromEnv[name] = value;
  }
  return {
    pid: stack.pid,
    vars: {
      APP_ENV: 'dev',
      // As npm start runs the app: its 12-hour demo tokens must pass here too (local/launcher/start.ts).
      ACCESS_TOKEN_MAX_LIFETIME_SECONDS: String(DEMO_TOKEN_TTL_SECONDS),
      ...stack.namespace,
      ...fromEnv,
      ...stack.stores,
      ...secrets,
    },
  };
}
