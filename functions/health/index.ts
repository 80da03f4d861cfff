// The health function: `GET /healthz`, 200 when Redis and PostgreSQL answer, 503 naming what is down.
import { createRoute } from '@hono/zod-openapi';
import * as z from 'zod';
import { createFunctionApp } from '../../lib/http/openapi-app.ts';
import { checkHealth } from '../../lib/runtime/health.ts';

export const healthFunction = createFunctionApp();

const healthSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  redis: z.enum(['ok', 'down']),
  postgres: z.enum(['ok', 'down']),
});

const healthRoute = createRoute({
  method: 'get',
  path: '/healthz',
  summary: 'Liveness of the stores this deployment needs',
  responses: {
    200: { description: 'every store answers', content: { 'application/json': { schema: healthSchema } } },
    503: { description: 'a store is down', content: { 'application/json': { schema: healthSchema } } },
  },
});

healthFunction.openapi(healthRoute, async (c) => {
  const health = await checkHealth(c.get('deps'));
  return health.status === 'ok' ? c.json(health, 200) : c.json(health, 503);
});
