// lastUsedAt: written at most once a minute per key, after the answer, never on its path.
import type { Config } from '../../config/index.ts';
import type { Deps } from '../../deps.ts';
import { errorKind } from '../../log/logger.ts';
import { dbCall } from '../../pg/unavailable.ts';

const EVERY_MS = 60_000;
const MAX_KEYS = 10_000;
const lastNoted = new WeakMap<Config, Map<string, number>>();

/**
 * Sends the write when this isolate has not noted the key for a minute; its WHERE leaves a row noted by another isolate
 * within the minute alone, so the row changes at most once a minute whatever the number of isolates. A failure is logged
 * and forgotten: the next minute writes again.
 */
export function noteApiKeyUsed(deps: Deps, apiKeyId: string, defer: ((work: Promise<unknown>) => void) | undefined): void {
  let map = lastNoted.get(deps.config);
  if (map === undefined) {
    map = new Map();
    lastNoted.set(deps.config, map);
  }
  const nowMs = deps.clock.now();
  const last = map.get(apiKeyId);
  if (last !== undefined && nowMs - last < EVERY_MS) return;
  map.delete(apiKeyId);
  map.set(apiKeyId, nowMs);
  if (map.size > MAX_KEYS) map.delete(map.keys().next().value as string);
  const now = new Date(nowMs).toISOString();
  const write = dbCall('commit', 'apiKeys.noteUsed', (signal) =>
    deps.db.query(
      `UPDATE api_keys SET last_used_at = $2::timestamptz
        WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= $2::timestamptz - interval '1 minute')`,
      [apiKeyId, now],
      { signal },
    ),
  ).catch((error: unknown) => deps.logger.warn('api_key_last_used_failed', { errorKind: errorKind(error) }));
  if (defer !== undefined) defer(write);
}
