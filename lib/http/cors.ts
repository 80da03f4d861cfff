// CORS for browser callers: CORS_ORIGINS, matched exactly, with credentials; any other origin gets no CORS header at all,
// and neither does any path under an excluded prefix (the console's), whatever the origin.
import type { Context } from 'hono';
import { cors } from 'hono/cors';
import { createMiddleware } from 'hono/factory';
import { CORRELATION_HEADER } from './correlation.ts';
import type { HonoEnv } from './hono-env.ts';

/** The methods the routes use, and the request headers a browser caller sends (x-csrf-token: the console's defence). */
export const CORS_ALLOWED_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
export const CORS_ALLOWED_HEADERS = ['authorization', 'content-type', CORRELATION_HEADER, 'x-csrf-token'];
/**
 * What a caller's script may read beyond the safelisted headers: the id to quote, when to come back (429, 503), and
 * the API rate limits' state (docs/api.md#authentication), so a browser client can slow down before it is refused.
 */
export const CORS_EXPOSED_HEADERS = [CORRELATION_HEADER, 'retry-after', 'ratelimit-policy', 'ratelimit'];
/** Browsers cap a cached preflight (Chromium at 2 hours); ten minutes keeps a changed list from lingering. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** The request's Origin when it is one of CORS_ORIGINS exactly, else undefined. */
function allowedOrigin(c: Context<HonoEnv>): string | undefined {
  const origin = c.req.header('origin');
  return origin !== undefined && c.get('deps').config.corsOrigins.includes(origin) ? origin : undefined;
}

const corsForAllowed = cors({
  origin: (_origin, c: Context<HonoEnv>) => allowedOrigin(c) ?? null,
  credentials: true,
  allowMethods: CORS_ALLOWED_METHODS,
  allowHeaders: CORS_ALLOWED_HEADERS,
  exposeHeaders: CORS_EXPOSED_HEADERS,
  maxAge: PREFLIGHT_MAX_AGE_SECONDS,
});

/** True for the prefix itself and every path below it (`/console`, `/console/…`), the way the router mounts it. */
function isUnder(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/**
 * Runs after Deps (the list is configuration). hono's cors sets its credentials and expose headers, and answers every
 * OPTIONS, whatever the origin; so an origin not on the list never reaches it, and its preflight falls through to the
 * router (404). With a list configured, every answer varies by Origin, so no cache hands one origin's answer to another.
 *
 * `exceptUnder`: prefixes that never get a CORS header, preflights included. The console's session lives in cookies, so
 * an allowed origin's script calling /console with credentials would carry the user's session; without
 * Access-Control-Allow-Origin the browser keeps every such answer from it, and a preflight for a state change fails.
 */
export function corsForConfiguredOrigins(options: { exceptUnder: readonly string[] }) {
  return createMiddleware<HonoEnv>(async (c, next) => {
    if (c.get('deps').config.corsOrigins.length === 0) return next();
    if (options.exceptUnder.some((prefix) => isUnder(c.req.path, prefix))) return next();
    if (allowedOrigin(c) !== undefined) return corsForAllowed(c, next);
    await next();
    c.header('vary', 'Origin', { append: true });
  });
}
