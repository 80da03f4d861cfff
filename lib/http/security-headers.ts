// The headers every response carries, errors and 404s included (docs/api.md#conventions): no sniffing, no framing, no referrer.
import { createMiddleware } from 'hono/factory';
import type { HonoEnv } from './hono-env.ts';

/**
 * What the API promises, and no more (not hono/secure-headers' defaults): Strict-Transport-Security is the TLS edge's
 * call (its includeSubDomains reaches hosts this app does not own), Cross-Origin-Opener-Policy would cut a sign-in
 * popup off from its opener, and a page that needs a Content-Security-Policy sets its own (the console: lib/console/security-headers.ts).
 */
export const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
} as const;

/** Outermost in functions/app.ts, so it runs after every handler, the error handler, the not-found answer and a preflight. */
export const securityHeaders = createMiddleware<HonoEnv>(async (c, next) => {
  await next();
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.header(name, value);
});
