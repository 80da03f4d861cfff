// The one object through which every function reaches the outside world, so tests swap real clients and clocks without module mocks.
import type { Config } from './config/index.ts';
import type { Keyspace } from './keys/index.ts';
import type { Db } from './pg/index.ts';
import type { RedisStore } from './redis/index.ts';
import type { Logger } from './log/logger.ts';

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
}
