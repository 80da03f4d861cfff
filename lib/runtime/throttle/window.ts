// Which counter a hit lands on: the fixed window of now, its key from the registry, and the seconds left in it.
import { hashSegment, type Keyspace } from '../../keys/index.ts';
import type { Deps } from '../../deps.ts';
import { THROTTLE_LIMITS, type LimitedAction } from './limits.ts';

export type ThrottleScope = Parameters<Keyspace['throttleCounter']>[0];

export interface ThrottleSubject {
  action: LimitedAction;
  /** The tenant or user the counter lives under (its hash tag), e.g. the organisation for invite-create. */
  scope: ThrottleScope;
  /** Who is counted (an organisation id, a user id; later an IP or an email): keyed-hashed before it reaches the key. */
  subject: string;
}

export interface ThrottleWindow {
  key: string;
  limit: number;
  /** Seconds from now to the end of the window (1..windowSeconds): the counter's TTL and the longest retry-after. */
  ttlSeconds: number;
}

export async function throttleWindow(deps: Pick<Deps, 'keys' | 'config' | 'clock'>, target: ThrottleSubject): Promise<ThrottleWindow> {
  const { limit, windowSeconds } = THROTTLE_LIMITS[target.action];
  const nowSeconds = Math.floor(deps.clock.now() / 1000);
  const windowStart = nowSeconds - (nowSeconds % windowSeconds);
  const subject = await hashSegment(deps.config.indexHashKey, target.subject);
  return {
    key: deps.keys.throttleCounter(target.scope, target.action, subject, windowStart),
    limit,
    ttlSeconds: windowStart + windowSeconds - nowSeconds,
  };
}
