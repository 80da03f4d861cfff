// The one object through which every function reaches the outside world, so tests swap real clients and clocks without module mocks.
import type { Config } from './config/index.ts';
import type { Keyspace } from './keys/index.ts';
import type { Db } from './pg/index.ts';
import type { RedisStore } from './redis/index.ts';
import type { Logger } from './log/logger.ts';
import type { Notifier } from './notify/notifier.ts';
import type { SingleFlight } from './single-flight.ts';
import type { RateLimitMemo } from './rate-limit-memo.ts';
import type { SyrveUpstream } from './upstream/syrve/index.ts';
import type { HostResolver } from './upstream/dns/host-resolver.ts';

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /**
   * Resolves after `ms`: a timer, so nothing runs while it waits (the sign-in delay, lib/auth/sign-in.ts). A test's
   * clock may record the wait and resolve at once; without one, waitOn uses a timer.
   */
  sleep?(ms: number): Promise<void>;
}

const timer = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export const systemClock: Clock = { now: () => Date.now(), sleep: timer };

/** Waits `ms` on the clock's own sleep, or on a timer for a clock that has none. */
export function waitOn(clock: Clock, ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return clock.sleep === undefined ? timer(ms) : clock.sleep(ms);
}

export interface Deps {
  /** The parsed configuration (lib/config). */
  config: Config;
  /** The key builders bound to `KEY_PREFIX` and `APP_ENV` (lib/keys). */
  keys: Keyspace;
  /** The main runtime store. */
  redis: RedisStore;
  /** The denylist store (the same object as the main store when both are configured alike). */
  revocation: RedisStore;
  /** PostgreSQL over the Neon driver (lib/pg). */
  db: Db;
  /** The time every decision reads; tests drive it. */
  clock: Clock;
  /** JSON log lines, never a secret (lib/log). */
  logger: Logger;
  /** The Syrve/iiko RMS client (local/fakes/syrve-upstream.ts stands in for it in dev and tests). */
  syrve: SyrveUpstream;
  /** Delivers mail: password-reset links and emailed invites (an email API in deployments, a mailbox folder locally). */
  notifier: Notifier;
  /** In-flight work shared within one isolate (one per Worker isolate, Lambda container or Node process). */
  inflight: SingleFlight;
  /** The rate limiter's memory within one isolate: refused callers until their window ends, the outage state. */
  rateLimits: RateLimitMemo;
  /** Resolves host names before an event is sent anywhere (lib/events/url-policy.ts); on Workers nothing resolves. */
  resolveHost: HostResolver;
}
