// Accepts a safe `x-correlation-id` or makes one, stores it on the context and echoes it on the response.
import { createMiddleware } from 'hono/factory';
import { uuidv7 } from 'uuidv7';
import type { HonoEnv } from './hono-env.ts';

export const CORRELATION_HEADER = 'x-correlation-id';
const SAFE_CORRELATION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export const correlation = createMiddleware<HonoEnv>(async (c, next) => {
  const offered = c.req.header(CORRELATION_HEADER);
  // An unsafe value is replaced, not rejected: it ends up in logs and audit rows, so it must stay plain.
  const correlationId = offered !== undefined && SAFE_CORRELATION_ID.test(offered) ? offered : uuidv7();
  c.set('correlationId', correlationId);
  c.header(CORRELATION_HEADER, correlationId);
  await next();
});
