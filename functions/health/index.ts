// The health function: `GET /healthz`, 200 when both Redis stores and PostgreSQL answer, 503 naming what is down; from
// the isolate's result of at most 1 s ago (lib/runtime/health-memo.ts), so a flood of calls costs the stores one check a second.
import * as z from 'zod';
import { defineFunction, defineRoute } from '../../lib/auth/define-function.ts';
import { RETRY_AFTER_UNAVAILABLE_SECONDS } from '../../lib/http/error-handler.ts';
import { jsonContent } from '../../lib/http/route-schemas.ts';
import { EVICTION_POLICIES } from '../../lib/redis/eviction.ts';
import { currentHealth } from '../../lib/runtime/health-memo.ts';

export const healthFunction = defineFunction({ prefix: '/healthz', auth: 'none' });

const storeStatus = z.enum(['ok', 'down']);
const evictionPolicy = z.enum([...EVICTION_POLICIES, 'unknown']);

const healthSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  redis: storeStatus,
  revocation: storeStatus.describe('the denylist store (the same answer as redis when one store serves both)'),
  postgres: storeStatus,
  eviction: z
    .object({ redis: evictionPolicy, revocation: evictionPolicy })
    .describe(
      "each Redis store's maxmemory-policy from INFO memory, unknown when the store does not say; reported only, never part of status (npm run keys:audit fails on a store that may evict)",
    ),
});

const healthRoute = defineRoute({
  method: 'get',
  path: '/',
  summary: 'Liveness of the stores this deployment needs',
  description:
    "Answered from this instance's last check while it is less than 1 s old (counted from the check's start), so the stores see at most one check (a PING and an INFO per Redis store, one query) per second per instance however often it is called, and a failure shows within 1 s of its start.",
  // A store that is down is this route's own 503 with the health body, never STORE_UNAVAILABLE.
  errors: [],
  responses: {
    200: { description: 'every store answers', ...jsonContent(healthSchema) },
    503: {
      description: 'a store is down',
      headers: { 'retry-after': { description: 'seconds to wait before asking again', schema: { type: 'integer', minimum: 1 } } },
      ...jsonContent(healthSchema),
    },
  },
});

healthFunction.openapi(healthRoute, async (c) => {
  const health = await currentHealth(c.get('deps'));
  if (health.status === 'ok') return c.json(health, 200);
  // Health answers its own 503 body, so the error handler's retry-after is set here.
  c.header('retry-after', String(RETRY_AFTER_UNAVAILABLE_SECONDS));
  return c.json(health, 503);
});
