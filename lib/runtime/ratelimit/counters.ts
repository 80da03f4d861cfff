// Which counters one request counts in: the scope whose hash tag holds them all, and each limit's two window keys.
import { hashSegment, type Keyspace } from '../../keys/index.ts';
import type { Deps } from '../../deps.ts';
import { RATE_LIMIT_WINDOW_MS, type RateLimitKind } from './limits.ts';

export interface RateLimitTarget {
  userId: string;
  /** The route's method and template, `GET /orgs/{orgId}/members`: never a path with ids or query in it. */
  route: string;
  /** The tenant: the route's organisation; undefined on a route without one (the counters then live under the user). */
  organizationId: string | undefined;
}

type CounterScope = Parameters<Keyspace['rateLimitCounter']>[0];

export interface CounterWindows {
  scope: CounterScope;
  /** The limits counted, in the script's order: user-route, user, and tenant where there is one. */
  kinds: RateLimitKind[];
  /** Per limit, its current window's key, its previous one's and its next one's (lib/runtime/ratelimit/lua.ts). */
  keys: string[];
  /** 1 - elapsed / window: how much of the previous window the sliding window still covers. */
  previousWeight: number;
  /** Milliseconds left in the current window. */
  windowLeftMs: number;
}

/** The subject each limit counts, before it is keyed-hashed into the key (no raw id or route reaches it). */
export function subjectOf(kind: RateLimitKind, target: RateLimitTarget): string {
  if (kind === 'tenant') return target.organizationId ?? '';
  return kind === 'user' ? target.userId : `${target.userId} ${target.route}`;
}

export function scopeOf(target: Pick<RateLimitTarget, 'userId' | 'organizationId'>): CounterScope {
  return target.organizationId !== undefined ? { kind: 'org', id: target.organizationId } : { kind: 'user', id: target.userId };
}

export async function counterWindows(deps: Pick<Deps, 'keys' | 'config'>, target: RateLimitTarget, nowMs: number): Promise<CounterWindows> {
  const scope = scopeOf(target);
  const kinds: RateLimitKind[] = target.organizationId !== undefined ? ['user-route', 'user', 'tenant'] : ['user-route', 'user'];
  const windowNumber = Math.floor(nowMs / RATE_LIMIT_WINDOW_MS);
  const elapsed = nowMs - windowNumber * RATE_LIMIT_WINDOW_MS;
  const hashes = await Promise.all(kinds.map((kind) => hashSegment(deps.config.indexHashKey, subjectOf(kind, target))));
  const keys = kinds.flatMap((kind, i) => [
    deps.keys.rateLimitCounter(scope, kind, hashes[i]!, windowNumber),
    deps.keys.rateLimitCounter(scope, kind, hashes[i]!, windowNumber - 1),
    deps.keys.rateLimitCounter(scope, kind, hashes[i]!, windowNumber + 1),
  ]);
  return { scope, kinds, keys, previousWeight: 1 - elapsed / RATE_LIMIT_WINDOW_MS, windowLeftMs: RATE_LIMIT_WINDOW_MS - elapsed };
}
