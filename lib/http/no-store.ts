// Answers that carry a credential (tokens, codes, secrets shown once) must never sit in a browser or proxy cache.
import { createMiddleware } from 'hono/factory';
import type { HonoEnv } from './hono-env.ts';

export const noStore = createMiddleware<HonoEnv>(async (c, next) => {
  await next();
  c.header('cache-control', 'no-store');
});
