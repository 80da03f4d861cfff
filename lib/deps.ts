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

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export interface Deps {
  config: Config;
  keys: Keyspace;
  /** The main runtime store. */
  redis: RedisStore;
  /** The denylist store (the main store in dev/test unless configured apart). */
  revocation: RedisStore;
  db: Db;
  clock: Clock;
  logger: Logger;
  /** The Syrve/iiko RMS client (local/fakes/syrve-upstream.ts stands in for it in dev and tests). */
  syrve: SyrveUpstream;
  /** Delivers password-reset links (an email API in deployments, a mailbox folder locally). */
  notifier: Notifier;
  /** In-flight work shared within one isolate (one per Worker isolate, Lambda container or Node process). */
  inflight: SingleFlight;
  /** The rate limiter's memory within one isolate: refused callers until their window ends, the outage state. */
  rateLimits: RateLimitMemo;
}
