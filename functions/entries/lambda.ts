// AWS Lambda entry (API Gateway v2 / function URL events, and the scheduled event of the cron): configuration from the function's environment.
import { getConnInfo, handle } from 'hono/aws-lambda';
import { createApp } from '../app.ts';
import { createDeps } from '../../lib/create-deps.ts';
import type { ScheduledRun } from '../../lib/cron/run-scheduled.ts';
import { RateLimitMemo } from '../../lib/rate-limit-memo.ts';
import { SingleFlight } from '../../lib/single-flight.ts';
import { configFor } from './env-config.ts';
import { nodeResolveHost } from './node-resolve-host.ts';
import { routeStoreFetch } from './store-fetch.ts';

// Lambda hands configuration to the process environment; this adapter is the one place that reads it.
// One per isolate (container): concurrent requests here share an in-flight upstream login.
const inflight = new SingleFlight();
const rateLimits = new RateLimitMemo();
// API Gateway's and function URLs' requestContext source IP (hono's reader falls back to x-forwarded-for behind an ALB).
// Lambda runs Node: the stores' calls go over node:http (./store-fetch.ts), once per config.
const depsFor = () => {
  const config = configFor(process.env);
  routeStoreFetch(config);
  return createDeps(config, { inflight, rateLimits, resolveHost: nodeResolveHost });
};
const app = createApp(depsFor, {
  clientIp: (c) => getConnInfo(c).remote.address,
});

export const handler = handle(app);

/**
 * The cron's target (EventBridge scheduled event). The event carries nothing the run needs, so it is not read.
 * A run never throws for a store that failed (it logs and returns), so Lambda's async retries do not stack runs.
 */
export const scheduled = async (_event: unknown): Promise<ScheduledRun> => {
  // Imported here, so the HTTP handler's cold start does not evaluate every task's module (docs/design/layers.md).
  const { runScheduled } = await import('../../lib/cron/run-scheduled.ts');
  return runScheduled(depsFor(), { trigger: 'lambda' });
};
