// Cloudflare Workers entry: configuration from the bindings, dependencies built per request and per scheduled event.
import { createApp } from '../app.ts';
import { createDeps } from '../../lib/create-deps.ts';
import { RateLimitMemo } from '../../lib/rate-limit-memo.ts';
import { SingleFlight } from '../../lib/single-flight.ts';
import { configFor } from './env-config.ts';

// One per isolate (container): concurrent requests here share an in-flight upstream login.
const inflight = new SingleFlight();
const rateLimits = new RateLimitMemo();
// Cloudflare sets cf-connecting-ip at its edge and overwrites any the client sent.
const app = createApp((c) => createDeps(configFor(c.env as object), { inflight, rateLimits }), {
  clientIp: (c) => c.req.header('cf-connecting-ip'),
  defer: (c, work) => c.executionCtx.waitUntil(work),
});

/** The parts of Workers' ExecutionContext this entry uses (the repository compiles without @cloudflare/workers-types). */
interface ScheduledContext {
  waitUntil(promise: Promise<unknown>): void;
}

export default {
  fetch: app.fetch,
  // The cron trigger (wrangler.toml [triggers]): which cron fired does not matter, every trigger runs the whole task list.
  scheduled(_controller: unknown, env: object, ctx: ScheduledContext): void {
    // Imported here, so a request's cold start does not evaluate every task's module (docs/design/layers.md).
    const run = import('../../lib/cron/run-scheduled.ts').then(({ runScheduled }) =>
      runScheduled(createDeps(configFor(env), { inflight, rateLimits }), { trigger: 'workers' }),
    );
    ctx.waitUntil(run);
  },
};
