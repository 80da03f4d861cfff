// `npm run cron -- --once`: runs the scheduled function once, configured from the environment exactly as a deployment is,
// or, when the environment names no store, with the running `npm start`'s (local/launcher/stack-env.ts).
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../lib/config/index.ts';
import { createDeps } from '../lib/create-deps.ts';
import { runScheduled } from '../lib/cron/run-scheduled.ts';
import { errorKind } from '../lib/log/logger.ts';
import { displayPath, resolveDataDir } from '../local/launcher/data-dir.ts';
import { neonProxyFor } from '../local/launcher/database.ts';
import { localStackEnv, namesStores } from '../local/launcher/stack-env.ts';
import { createTeardown } from '../local/stack/teardown.ts';

const NAME = 'cron';
const USAGE = `usage: npm run cron -- --once
Runs every scheduled task once, under the run lock, with the app's variables from the environment
(UPSTASH_REDIS_REST_URL, DATABASE_URL, …; docs/api.md#environment). With neither UPSTASH_REDIS_REST_URL nor
DATABASE_URL set, it runs against the npm start running on .data (or RUNSTATE_DATA_DIR), with its stores and dev
secrets. Deployments run it on their own schedule and npm start runs it on a timer; this is for running it by hand.`;

// Exit codes (ops/README.md): 0 it ran and no task failed; 1 it could not run (arguments, settings, Redis) or a task
// failed; 2 another run holds the lock, so nothing ran.
function fail(message: string): never {
  console.error(`${NAME}: ${message}`);
  process.exit(1);
}

let once = false;
try {
  once = parseArgs({ options: { once: { type: 'boolean' } }, allowPositionals: false }).values.once === true;
} catch {
  // parseArgs' message echoes the argument, which might be a secret someone pasted: say only how to call it.
  fail(`unexpected arguments (settings go in the environment, never in arguments)\n${USAGE}`);
}
// Without --once an operator might expect a daemon; the schedules belong to the deployments.
if (!once) fail(`runs only with --once\n${USAGE}`);

function configFrom(env: NodeJS.ProcessEnv) {
  try {
    return loadConfig(env);
  } catch (error) {
    // ConfigError names variables and rules, never their values.
    if (error instanceof ConfigError) fail(`${error.message}\n${USAGE}`);
    throw error;
  }
}

// No store named: the local stack's variables, as npm start configured the app (the environment's own still win).
let env: NodeJS.ProcessEnv = process.env;
if (!namesStores(env)) {
  const dataDir = resolveDataDir(env);
  try {
    const local = await localStackEnv(dataDir, env);
    env = { ...env, ...local.vars };
    console.error(
      `${NAME}: no UPSTASH_REDIS_REST_URL or DATABASE_URL set: using the npm start running on ${displayPath(dataDir)} (pid ${local.pid})`,
    );
  } catch (error) {
    // Its messages name the folder and a pid, never a value from the files.
    fail(`${(error as Error).message}; or set the app's variables in the environment\n${USAGE}`);
  }
}

let config = configFrom(env);
// The Neon driver speaks HTTP and WebSocket, never PostgreSQL's own protocol: in dev/test, a PostgreSQL on this machine
// without NEON_LOCAL_PROXY_URL gets the local Neon proxy in front for this run, as npm start gives it one (staging and
// prod refuse a local proxy, and their database is Neon itself).
const started = createTeardown();
if ((config.appEnv === 'dev' || config.appEnv === 'test') && config.neonLocalProxyUrl === undefined) {
  const proxyUrl = await neonProxyFor(env, config.databaseUrl, started);
  if (proxyUrl !== undefined) {
    console.error(`${NAME}: DATABASE_URL is a PostgreSQL on this machine; reaching it through a local Neon proxy`);
    config = configFrom({ ...env, NEON_LOCAL_PROXY_URL: proxyUrl });
  }
}

// The first signal lets the task in hand finish and starts no other; a second one kills as usual.
const stop = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`${NAME}: ${signal}: stopping after the task in hand`);
    stop.abort();
  });
}

// The JSON lines (cron_task per task, cron_run at the end) go to stdout, as a deployment logs them.
const deps = createDeps(config);
let code = 1;
try {
  const run = await runScheduled(deps, { trigger: 'cli', signal: stop.signal });
  if (run.ran) {
    const left = run.notStarted.length > 0 ? `, ${run.notStarted.length} not started (they run next time)` : '';
    console.error(`${NAME}: ${run.reports.length} tasks ran, ${run.failed.length} failed${left}`);
    code = run.failed.length === 0 ? 0 : 1;
  } else if (run.reason === 'locked') {
    console.error(`${NAME}: another run holds the lock; nothing ran (try again when it ends)`);
    code = 2;
  } else {
    console.error(`${NAME}: Redis did not answer; nothing ran`);
  }
} catch (error) {
  // A bug: its kind only, since a client library's message can quote keys and values.
  console.error(`${NAME}: failed: ${errorKind(error)}`);
}
await started.run();
// Keep-alive sockets of the HTTP clients would hold the process open for a while; the work is done.
process.exit(code);
