// `<data>/stack.json` (0600): where the running `npm start` put its stores and keys, so `npm run dev:worker`, `npm run
// cron` and `npm run keys:audit` can find them without the values being copied by hand.
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { fullEnvSchema } from '../../lib/config/schema.ts';
import { displayPath } from './data-dir.ts';
import type { Teardown } from '../stack/teardown.ts';
import type { ProvidedRedis } from './redis.ts';
import { readIfExists, writePrivateFile } from './private-file.ts';

/** The variables that point the app at this stack's stores: the launcher's own ones, as it configured the app with them. */
const storesSchema = z.strictObject({
  UPSTASH_REDIS_REST_URL: z.string().min(1),
  UPSTASH_REDIS_REST_TOKEN: z.string().min(1),
  REVOCATION_REDIS_REST_URL: z.string().min(1).optional(),
  REVOCATION_REDIS_REST_TOKEN: z.string().min(1).optional(),
  DATABASE_URL: z.string().min(1),
  NEON_LOCAL_PROXY_URL: z.string().min(1).optional(),
});
export type StackStores = z.infer<typeof storesSchema>;

/** The key namespace the app runs with (APP_ENV and KEY_PREFIX as npm start resolved them): what a keyspace audit scans. */
const namespaceSchema = z.strictObject({ APP_ENV: z.string().min(1), KEY_PREFIX: z.string().min(1) });
export type StackNamespace = z.infer<typeof namespaceSchema>;

// `namespace` is optional: a file written before it existed still reads.
const fileSchema = z.strictObject({ pid: z.number().int().positive(), stores: storesSchema, namespace: namespaceSchema.optional() });

/** APP_ENV and KEY_PREFIX as the app will read them from `env` (defaults included); undefined when either is invalid. */
export function stackNamespace(env: Record<string, string | undefined>): StackNamespace | undefined {
  const { APP_ENV, KEY_PREFIX } = fullEnvSchema().shape;
  const appEnv = APP_ENV.safeParse(env.APP_ENV || undefined);
  const keyPrefix = KEY_PREFIX.safeParse(env.KEY_PREFIX || undefined);
  return appEnv.success && keyPrefix.success ? { APP_ENV: appEnv.data, KEY_PREFIX: keyPrefix.data } : undefined;
}

export function stackFile(dataDir: string): string {
  return join(dataDir, 'stack.json');
}

/**
 * Writes the file (the proxy's token and the database URL are secrets: 0600, written then renamed) and registers its
 * removal on `teardown`, so it exists only while this launcher runs.
 */
export async function writeStackFile(
  dataDir: string,
  stores: { redis: ProvidedRedis; databaseUrl: string; neonLocalProxyUrl: string | undefined; namespace?: StackNamespace | undefined },
  teardown: Teardown,
): Promise<void> {
  const file = stackFile(dataDir);
  const content: z.infer<typeof fileSchema> = {
    pid: process.pid,
    ...(stores.namespace !== undefined ? { namespace: stores.namespace } : {}),
    stores: {
      UPSTASH_REDIS_REST_URL: stores.redis.url,
      UPSTASH_REDIS_REST_TOKEN: stores.redis.token,
      ...(stores.redis.revocation === undefined
        ? {}
        : { REVOCATION_REDIS_REST_URL: stores.redis.revocation.url, REVOCATION_REDIS_REST_TOKEN: stores.redis.revocation.token }),
      DATABASE_URL: stores.databaseUrl,
      ...(stores.neonLocalProxyUrl !== undefined ? { NEON_LOCAL_PROXY_URL: stores.neonLocalProxyUrl } : {}),
    },
  };
  await writePrivateFile(file, `${JSON.stringify(content, null, 2)}\n`);
  teardown.add('stack.json', () => removeIfOurs(file));
}

// Another launcher on the same folder may have written its own since; that one stays.
async function removeIfOurs(file: string): Promise<void> {
  const current = await readStackFile(file).catch(() => undefined);
  if (current?.pid === process.pid) await unlink(file).catch(() => undefined);
}

export interface RunningStack {
  pid: number;
  stores: StackStores;
  /** Absent in a file an older npm start wrote. */
  namespace: StackNamespace | undefined;
}
export type StackLookup = ({ kind: 'running' } & RunningStack) | { kind: 'none' } | { kind: 'stale'; pid: number };

/** The stores of the `npm start` running on this data folder, if one is. */
export async function findRunningStack(dataDir: string): Promise<StackLookup> {
  const found = await readStackFile(stackFile(dataDir));
  if (found === undefined) return { kind: 'none' };
  if (!isAlive(found.pid)) return { kind: 'stale', pid: found.pid };
  return { kind: 'running', pid: found.pid, stores: found.stores, namespace: found.namespace };
}

/** The running stack, or an error that says what to do: start npm start, or name its data folder. */
export async function requireRunningStack(dataDir: string): Promise<RunningStack> {
  const stack = await findRunningStack(dataDir);
  if (stack.kind === 'none') {
    throw new Error(`no npm start is running on ${displayPath(dataDir)}: start it first (or set RUNSTATE_DATA_DIR to its data folder)`);
  }
  if (stack.kind === 'stale') {
    throw new Error(`the npm start that wrote ${displayPath(stackFile(dataDir))} (pid ${stack.pid}) is gone: start it again`);
  }
  return stack;
}

async function readStackFile(file: string): Promise<z.infer<typeof fileSchema> | undefined> {
  const text = await readIfExists(file);
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const result = fileSchema.safeParse(parsed);
  // Never quote the file: it holds the proxy token.
  if (!result.success) throw new Error(`${file} is not a stack file npm start wrote; delete it and restart npm start`);
  return result.data;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
