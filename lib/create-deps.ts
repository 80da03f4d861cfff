// Builds the Deps of one deployment from its Config; the clients are stateless HTTP clients, cheap to build per request.
import type { Config } from './config/index.ts';
import { createKeyspace } from './keys/index.ts';
import { createDb } from './pg/db.ts';
import { createRedisStore } from './redis/index.ts';
import { createJsonLogger, type Logger } from './log/logger.ts';
import { systemClock, type Clock, type Deps } from './deps.ts';
import { SingleFlight } from './single-flight.ts';
import { RateLimitMemo } from './rate-limit-memo.ts';
import { createEmailApiNotifier } from './notify/email-api.ts';
import { noNotifier, type Notifier } from './notify/notifier.ts';
import { createSyrveClient, type SyrveUpstream } from './upstream/syrve/index.ts';
import { dohHostResolver } from './upstream/dns/doh-host-resolver.ts';
import { noHostResolver, type HostResolver } from './upstream/dns/host-resolver.ts';
import { trackNewDeliveries } from './pg/new-deliveries.ts';

export interface DepsOverrides {
  logger?: Logger;
  clock?: Clock;
  syrve?: SyrveUpstream;
  /** The local stack's mailbox stands in for an email API (local/mailbox). */
  notifier?: Notifier;
  /** Entries that build Deps per request pass one per isolate, so callers in it share their in-flight logins. */
  inflight?: SingleFlight;
  /** Likewise one per isolate, so a refused caller is refused from memory by every request the isolate serves. */
  rateLimits?: RateLimitMemo;
  /** Node and Lambda pass dns.promises.lookup (functions/entries/node-resolve-host.ts); tests pass their own. */
  resolveHost?: HostResolver;
  /** Every Redis call's deadline, both stores (lib/redis/store.ts says when a test sets it); unset, each kind's own. */
  redisTimeoutMs?: number;
}

export function createDeps(config: Config, overrides: DepsOverrides = {}): Deps {
  const storeOptions = overrides.redisTimeoutMs !== undefined ? { timeoutMs: overrides.redisTimeoutMs } : {};
  const redis = createRedisStore(config.redis, storeOptions);
  const sameStore = config.revocationRedis.url === config.redis.url && config.revocationRedis.token === config.redis.token;
  return {
    config,
    keys: createKeyspace({ prefix: config.keyPrefix, env: config.appEnv }),
    redis,
    revocation: sameStore ? redis : createRedisStore(config.revocationRedis, storeOptions),
    // Tracked: a change's own batch tells which webhook deliveries it wrote, for the answer's after-work (functions/app.ts).
    db: trackNewDeliveries(
      createDb({
        databaseUrl: config.databaseUrl,
        ...(config.neonLocalProxyUrl !== undefined ? { neonLocalProxyUrl: config.neonLocalProxyUrl } : {}),
      }),
    ),
    clock: overrides.clock ?? systemClock,
    logger: overrides.logger ?? createJsonLogger(),
    syrve: overrides.syrve ?? createSyrveClient({ appEnv: config.appEnv }),
    notifier: overrides.notifier ?? (config.emailApi !== undefined ? createEmailApiNotifier(config.emailApi) : noNotifier),
    inflight: overrides.inflight ?? new SingleFlight(),
    rateLimits: overrides.rateLimits ?? new RateLimitMemo(),
    // Node and Lambda pass the system resolver; elsewhere (Workers) the configured DNS-over-HTTPS resolver, or none.
    resolveHost:
      overrides.resolveHost ?? (config.domainVerify !== undefined ? dohHostResolver(config.domainVerify.dohUrl) : noHostResolver),
  };
}
