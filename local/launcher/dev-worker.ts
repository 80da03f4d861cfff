// `npm run dev:worker`: the worker under `wrangler dev` (workerd, on 127.0.0.1), against the stores of the running `npm start`.
import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { REPO_ROOT, displayPath, resolveDataDir } from './data-dir.ts';
import { devWorkerVars, devWorkerVarsFile, writeDevWorkerVars } from './dev-worker-vars.ts';

const DEFAULT_PORT = 8788;
const USAGE = 'usage: npm run dev:worker [-- --port <port>]';

function portFrom(argv: string[]): number {
  let port: string | undefined;
  try {
    port = parseArgs({ args: argv, options: { port: { type: 'string' } }, strict: true, allowPositionals: false }).values.port;
  } catch {
    // Never echo what was given: it could be a secret pasted in the wrong place.
    throw new Error(`unknown arguments; ${USAGE}`);
  }
  if (port === undefined) return DEFAULT_PORT;
  const parsed = Number(port);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > 65_535) throw new Error(`--port takes a port number; ${USAGE}`);
  return parsed;
}

async function main(): Promise<number> {
  const port = portFrom(process.argv.slice(2));
  const dataDir = resolveDataDir(process.env);
  const varsFile = devWorkerVarsFile(dataDir);
  await writeDevWorkerVars(varsFile, await devWorkerVars(dataDir, process.env));
  console.log(`dev:worker: the worker's variables are in ${displayPath(varsFile)} (mode 0600, removed on exit); starting wrangler dev`);

  const wrangler = join(REPO_ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
  // Values go by file, never argv. Loopback only, the inspector too; `--env=` is the top-level worker (wrangler.toml),
  // its [vars] overridden by the file; /__scheduled runs the scheduled handler on request (the crons do not fire locally).
  const args = [
    ...[wrangler, 'dev', '--local', '--env=', '--env-file', varsFile],
    ...['--ip', '127.0.0.1', '--port', String(port), '--inspector-ip', '127.0.0.1', '--test-scheduled'],
  ];
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    stdio: 'inherit',
    // Offline here: no fetch of the Request.cf placeholder from Cloudflare, no metrics.
    env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: 'false', WRANGLER_SEND_METRICS: 'false' },
  });
  // Ctrl-C reaches wrangler through the terminal's process group; SIGTERM to this process alone is passed on. Either
  // way this process waits for wrangler, then removes the file (package.json runs it as `node --import tsx`, not the tsx
  // CLI, whose signal relay may SIGKILL a child that is slow to acknowledge, skipping that).
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  process.on('SIGINT', () => undefined);
  const code = await new Promise<number>((resolve) => child.once('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0))));
  await rm(varsFile, { force: true });
  return code;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`dev:worker: ${(error as Error).message}`);
    process.exit(1);
  },
);
