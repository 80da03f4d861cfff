// Runs @upstash/redis's own test suite with bun against a plain reference REST front and against our proxy, then compares.
// Usage: npm run compat:upstash -- --suite <checkout of upstash/redis-js> [--timeout ms] [--bun path] [--out dir] [--files pkg/...] [--fault-command name]
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startRedisRestProxy } from '../../local/emulators/upstash/index.ts';
import { startRedisServer } from '../../local/processes/redis-server.ts';
import { compareRuns, formatComparison } from './compare.ts';
import { readJunit, type TestOutcome } from './junit.ts';
import { startReferenceFront } from './reference-front.ts';

const USAGE = `Usage: npm run compat:upstash -- --suite <path> [options]

  --suite    a checkout of upstash/redis-js (its root or packages/redis)
  --timeout  per-test timeout in ms (default 20000, as the suite's own script)
  --bun      the bun binary (default: $BUN, else bun on PATH)
  --out      folder for the JUnit files and logs (default: a new temporary folder)
  --files    test path filter handed to bun test (default: pkg, i.e. pkg/**/*.test.ts); repeatable
  --fault-command  self-check: make our proxy fail this command (repeatable), so the comparison must report misses`;

interface Front {
  url: string;
  token: string;
  close(): Promise<void>;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      suite: { type: 'string' },
      timeout: { type: 'string', default: '20000' },
      bun: { type: 'string' },
      out: { type: 'string' },
      files: { type: 'string', multiple: true },
      'fault-command': { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help === true || values.suite === undefined) {
    console.log(USAGE);
    return values.help === true ? 0 : 2;
  }
  const packageDir = findPackageDir(resolve(values.suite));
  const bun = findBun(values.bun);
  const timeout = Number(values.timeout);
  if (!Number.isInteger(timeout) || timeout <= 0) throw new Error(`--timeout must be a positive number of ms, got "${values.timeout}"`);
  const outDir = values.out === undefined ? mkdtempSync(join(tmpdir(), 'compat-upstash-')) : resolve(values.out);
  mkdirSync(outDir, { recursive: true });
  ensureSuiteDependencies(bun, packageDir);

  const suiteRun = { bun, packageDir, timeout, outDir, files: values.files ?? ['pkg'] };
  const reference = await runPass('reference', suiteRun, (redisUrl, token) => startReferenceFront({ redisUrl, token }));
  const faultCommands = values['fault-command'] ?? [];
  const ours = await runPass('ours', suiteRun, async (redisUrl, token) => {
    const proxy = await startRedisRestProxy({ redisUrl, token });
    if (faultCommands.length > 0) proxy.faults.set({ failCommands: faultCommands });
    return proxy;
  });

  const comparison = compareRuns(reference, ours);
  console.log(`\n${formatComparison(comparison)}\n\nJUnit files and logs: ${outDir}`);
  if (ours.length === 0 || reference.length === 0) {
    console.error('compat:upstash: a pass ran no test; see the logs');
    return 1;
  }
  return comparison.missedByOurs.length === 0 ? 0 : 1;
}

/** One pass: a fresh redis-server, a front before it, the whole suite through the front. */
async function runPass(
  label: string,
  suite: { bun: string; packageDir: string; timeout: number; outDir: string; files: string[] },
  startFront: (redisUrl: string, token: string) => Promise<Front>,
): Promise<TestOutcome[]> {
  // The suite exercises commands newer than 6.0 (GETDEL, LMOVE, …); the project's 6.0 ceiling is not what it compares.
  const redis = await startRedisServer({ ceiling: false });
  const token = randomBytes(24).toString('base64url');
  const front = await startFront(redis.url, token).catch(async (error: unknown) => {
    await redis.stop();
    throw error;
  });
  const junitFile = join(suite.outDir, `${label}.xml`);
  const logFile = join(suite.outDir, `${label}.log`);
  const started = Date.now();
  process.stdout.write(`[${label}] running the suite through ${front.url} ... `);
  try {
    await runBun(
      suite.bun,
      ['test', ...suite.files, '--timeout', String(suite.timeout), '--reporter=junit', `--reporter-outfile=${junitFile}`],
      suite.packageDir,
      { UPSTASH_REDIS_REST_URL: front.url, UPSTASH_REDIS_REST_TOKEN: token },
      logFile,
    );
  } finally {
    await front.close();
    await redis.stop();
  }
  if (!existsSync(junitFile)) throw new Error(`bun wrote no JUnit file for the ${label} pass; see ${logFile}`);
  const outcomes = readJunit(readFileSync(junitFile, 'utf8'));
  const passed = outcomes.filter((outcome) => outcome.status === 'passed').length;
  console.log(`${passed}/${outcomes.length} passed in ${Math.round((Date.now() - started) / 1000)} s`);
  return outcomes;
}

/** Bun exits non-zero whenever a test fails, which is expected here; only the JUnit file counts. */
function runBun(bun: string, args: string[], cwd: string, env: Record<string, string>, logFile: string): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const log = createWriteStream(logFile);
    const child = spawn(bun, args, { cwd, env: { ...process.env, ...env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    child.once('error', reject);
    child.once('close', () => log.end(() => resolvePromise()));
  });
}

function findPackageDir(suite: string): string {
  for (const candidate of [join(suite, 'packages', 'redis'), suite]) {
    if (existsSync(join(candidate, 'pkg', 'test-utils.ts'))) return candidate;
  }
  throw new Error(`${suite} does not look like a checkout of upstash/redis-js (no packages/redis/pkg/test-utils.ts)`);
}

function findBun(given: string | undefined): string {
  const candidates = [given, process.env.BUN, 'bun'].filter(
    (candidate): candidate is string => candidate !== undefined && candidate !== '',
  );
  for (const candidate of candidates) {
    if (spawnSync(candidate, ['--version'], { stdio: 'ignore' }).status === 0) return candidate;
  }
  throw new Error(
    'bun was not found. Install it outside this project, e.g. `mkdir -p /tmp/bun-home && cd /tmp/bun-home && npm i --no-save bun`, ' +
      'then pass --bun /tmp/bun-home/node_modules/.bin/bun (or set BUN, or put it on PATH).',
  );
}

/** The tests import only `bun:test` and `uncrypto`; bun installs the latter from the npm registry once. */
function ensureSuiteDependencies(bun: string, packageDir: string): void {
  if (existsSync(join(packageDir, 'node_modules', 'uncrypto'))) return;
  console.log(`Installing the suite's dependencies with bun in ${packageDir} ...`);
  const install = spawnSync(bun, ['install', '--production'], { cwd: packageDir, stdio: 'inherit' });
  if (install.status !== 0) throw new Error('bun install failed in the suite checkout');
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`compat:upstash: ${(error as Error).message}\n\n${USAGE}`);
    process.exit(1);
  },
);
