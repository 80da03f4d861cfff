// `npm run keys:audit`: a paced, read-only walk of a live keyspace against the key registry (ops/README.md).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fullEnvSchema } from '../lib/config/schema.ts';
import { parseNamespace, type KeyNamespace } from '../lib/keys/namespace.ts';
import type { StoreRole } from '../lib/redis/eviction.ts';
import { displayPath, resolveDataDir } from '../local/launcher/data-dir.ts';
import { requireRunningStack, type RunningStack } from '../local/launcher/stack-file.ts';
import { auditKeyspace } from './keys-audit/audit-keyspace.ts';
import { connectResp, connectRest, ConnectionError, type ReadOnlyRedis } from './keys-audit/read-only-redis.ts';
import { reportJson, reportTable } from './keys-audit/report.ts';

const NAME = 'keys:audit';
const USAGE = `usage: npm run -s ${NAME} -- (--redis <redis://host:port> | --rest-url <https://…>) (--env <env> [--prefix <p>] | --all)
         [--store main|revocation] [--count 100] [--rate 1000] [--max-value-bytes 65536] [--max-members 1000] [--json]

  --redis            a Redis over RESP; a URL with a password belongs in REDIS_URL (used when neither flag is given)
  --rest-url         an Upstash REST endpoint; the token from UPSTASH_REDIS_REST_TOKEN or --token-file, never argv
                     (UPSTASH_REDIS_REST_URL is used when neither flag is given)
                     With none of these, the npm start running on .data (or RUNSTATE_DATA_DIR): its REST proxy
                     (--store revocation: its denylist store) and its APP_ENV and KEY_PREFIX
  --env, --prefix    scan <prefix>:<env>:* only (prefix default $KEY_PREFIX, else mhpay; env default $APP_ENV)
  --all              scan every key, of any prefix and env
  --store            which store this is (default main): either must not evict (maxmemory-policy noeviction;
                     Upstash: eviction off); a policy that may evict is a finding, one the store does not show is unknown
  --count            SCAN's COUNT hint per batch
  --rate             keys per second, at most (it sleeps between batches)
  --max-value-bytes  longer strings are reported, not read; --max-members: sorted-set members read per key
  --json             one JSON document instead of the table

Exit codes: 0 no findings, 1 findings, 2 usage or connection error.`;

interface Options {
  store: StoreRole;
  source: { kind: 'resp'; url: string } | { kind: 'rest'; url: string; token: string };
  namespace: KeyNamespace | undefined;
  count: number;
  rate: number;
  maxValueBytes: number;
  maxMembers: number;
  json: boolean;
}

function usageError(message: string): never {
  console.error(`${NAME}: ${message}\n\n${USAGE}`);
  process.exit(2);
}

function integer(value: string | undefined, fallback: number, name: string, max: number): number {
  const parsed = Number(value ?? fallback);
  if (!Number.isSafeInteger(parsed) || parsed < 1 || parsed > max) usageError(`--${name} must be an integer from 1 to ${max}`);
  return parsed;
}

type Values = ReturnType<typeof parseValues>;

function parseValues() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        redis: { type: 'string' },
        'rest-url': { type: 'string' },
        'token-file': { type: 'string' },
        prefix: { type: 'string' },
        env: { type: 'string' },
        all: { type: 'boolean' },
        count: { type: 'string' },
        rate: { type: 'string' },
        'max-value-bytes': { type: 'string' },
        'max-members': { type: 'string' },
        json: { type: 'boolean' },
        store: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: false,
    }));
  } catch {
    // parseArgs' message echoes the argument, which might be a token someone pasted: say only how to call it.
    usageError('unexpected arguments (secrets go in the environment or a file, never in arguments)');
  }
  if (values.help === true) {
    console.log(USAGE);
    process.exit(0);
  }
  return values;
}

/** True when neither an option nor the environment says which store: then the local stack's is audited. */
function namesNoStore(values: Values, env: NodeJS.ProcessEnv): boolean {
  return (
    values.redis === undefined && values['rest-url'] === undefined && !nonEmpty(env.REDIS_URL) && !nonEmpty(env.UPSTASH_REDIS_REST_URL)
  );
}

/** The running npm start's stores and key namespace, saying so on stderr (the report goes to stdout). */
async function localStack(env: NodeJS.ProcessEnv): Promise<RunningStack> {
  const dataDir = resolveDataDir(env);
  try {
    const stack = await requireRunningStack(dataDir);
    console.error(`${NAME}: no store given: auditing the npm start running on ${displayPath(dataDir)} (pid ${stack.pid})`);
    return stack;
  } catch (error) {
    // The messages name the folder and a pid, never a value from the file.
    return usageError(`say which store: --redis, --rest-url, REDIS_URL or UPSTASH_REDIS_REST_URL (${(error as Error).message})`);
  }
}

function buildOptions(values: Values, env: NodeJS.ProcessEnv, local: RunningStack | undefined): Options {
  const store = values.store ?? 'main';
  if (store !== 'main' && store !== 'revocation') usageError('--store must be main or revocation');
  return {
    store,
    source: local !== undefined ? localSource(local, store) : sourceFrom(values, env),
    namespace: namespaceFrom(values, env, local),
    count: integer(values.count, 100, 'count', 10_000),
    rate: integer(values.rate, 1_000, 'rate', 1_000_000),
    maxValueBytes: integer(values['max-value-bytes'], 65_536, 'max-value-bytes', 16 * 1024 * 1024),
    maxMembers: integer(values['max-members'], 1_000, 'max-members', 100_000),
    json: values.json === true,
  };
}

function sourceFrom(
  values: { redis?: string | undefined; 'rest-url'?: string | undefined; 'token-file'?: string | undefined },
  env: NodeJS.ProcessEnv,
): Options['source'] {
  if (values.redis !== undefined && values['rest-url'] !== undefined) usageError('give --redis or --rest-url, not both');
  if (values.redis !== undefined) {
    if (hasPassword(values.redis)) usageError('a Redis URL with a password belongs in REDIS_URL: every user of this machine can read argv');
    return { kind: 'resp', url: values.redis };
  }
  const restUrl = values['rest-url'] ?? (nonEmpty(env.REDIS_URL) ? undefined : env.UPSTASH_REDIS_REST_URL);
  if (!nonEmpty(restUrl)) {
    if (nonEmpty(env.REDIS_URL)) return { kind: 'resp', url: env.REDIS_URL };
    usageError('say which store: --redis, --rest-url, REDIS_URL or UPSTASH_REDIS_REST_URL');
  }
  if (!/^https?:\/\//.test(restUrl)) usageError('--rest-url must be an http(s) URL');
  return { kind: 'rest', url: restUrl, token: tokenFrom(values['token-file'], env.UPSTASH_REDIS_REST_TOKEN) };
}

/** The stack's REST proxy for the store asked for: the denylist's own when npm start gave it one, else the main. */
function localSource(local: RunningStack, store: StoreRole): Options['source'] {
  const { stores } = local;
  if (store === 'revocation' && stores.REVOCATION_REDIS_REST_URL !== undefined && stores.REVOCATION_REDIS_REST_TOKEN !== undefined) {
    return { kind: 'rest', url: stores.REVOCATION_REDIS_REST_URL, token: stores.REVOCATION_REDIS_REST_TOKEN };
  }
  return { kind: 'rest', url: stores.UPSTASH_REDIS_REST_URL, token: stores.UPSTASH_REDIS_REST_TOKEN };
}

function nonEmpty(value: string | undefined): value is string {
  return value !== undefined && value !== '';
}

function hasPassword(url: string): boolean {
  try {
    return new URL(url).password !== '';
  } catch {
    return usageError('--redis must be a redis:// or rediss:// URL');
  }
}

function tokenFrom(file: string | undefined, fromEnv: string | undefined): string {
  let token = fromEnv;
  if (file !== undefined) {
    try {
      token = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    } catch (error) {
      usageError(`--token-file ${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    if (token.includes('\n')) usageError(`--token-file ${file} must hold the token on one line`);
  }
  if (token === undefined || token === '') usageError('the REST endpoint needs a token: UPSTASH_REDIS_REST_TOKEN or --token-file');
  return token;
}

function namespaceFrom(
  values: { all?: boolean | undefined; prefix?: string | undefined; env?: string | undefined },
  env: NodeJS.ProcessEnv,
  local: RunningStack | undefined,
) {
  if (values.all === true) {
    if (values.prefix !== undefined || values.env !== undefined) usageError('--all scans every namespace; drop --prefix and --env');
    return undefined;
  }
  // An option, else the environment, else (auditing the local stack) the namespace npm start runs the app with.
  const keyEnv = values.env ?? (nonEmpty(env.APP_ENV) ? env.APP_ENV : local?.namespace?.APP_ENV);
  if (keyEnv === undefined || keyEnv === '') usageError('say which keys: --env <dev|test|staging|prod> (or APP_ENV), or --all');
  // Last, KEY_PREFIX's default: the app's own, read from its schema.
  const prefix =
    values.prefix ??
    (nonEmpty(env.KEY_PREFIX) ? env.KEY_PREFIX : (local?.namespace?.KEY_PREFIX ?? fullEnvSchema().shape.KEY_PREFIX.parse(undefined)));
  try {
    return parseNamespace({ prefix, env: keyEnv });
  } catch (error) {
    return usageError((error as Error).message);
  }
}

async function main(): Promise<number> {
  const values = parseValues();
  const local = namesNoStore(values, process.env) ? await localStack(process.env) : undefined;
  const options = buildOptions(values, process.env, local);
  if (local !== undefined && options.namespace !== undefined) {
    console.error(`${NAME}: keys ${options.namespace.prefix}:${options.namespace.env}:* through its REST proxy ${options.source.url}`);
  }
  let redis: ReadOnlyRedis | undefined;
  try {
    redis = options.source.kind === 'resp' ? await connectResp(options.source.url) : connectRest(options.source.url, options.source.token);
    const report = await auditKeyspace(redis, options);
    console.log(options.json ? reportJson(report, options.rate) : reportTable(report, options.rate));
    return report.findings.length === 0 ? 0 : 1;
  } catch (error) {
    // Connection errors name the host's answer, never the URL's password or the token.
    const reason = error instanceof ConnectionError ? error.message : `stopped: ${(error as Error).message}`;
    console.error(`${NAME}: ${reason}`);
    return 2;
  } finally {
    await redis?.close();
  }
}

process.exitCode = await main();
