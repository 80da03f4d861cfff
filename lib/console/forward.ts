// The console's way to the API: a browser request to /console/api/<path> becomes the same request to <path> on this very
// app, in process, with the session's access token as its bearer and no cookie, so the API answers exactly as it would.
import type { Context } from 'hono';
import type { StatusCode } from 'hono/utils/http-status';
import type { HonoEnv } from '../http/hono-env.ts';

/** Runs a request through the whole app (functions/app.ts passes its own fetch, with this request's env and context). */
export type Dispatch = (request: Request, c: Context<HonoEnv>) => Response | Promise<Response>;

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
/**
 * What the page may reach: the organisation routes, the caller's context, memberships and sessions (the list, and one
 * session by its UUID, so /auth/sessions/revoke-all is not), the caller's passkeys (registration, the list, one by its
 * UUID) and a passkey sign-in's options, and the public tenant resolve (sign-in by slug). Sign-in (password or passkey),
 * refresh, handoff and MFA verification answer with credentials, which must stay out of the page: the console's own
 * /console/session routes call those.
 */
const ALLOWED = [
  /^\/orgs\/[^/]+\/.+/,
  /^\/auth\/context$/,
  /^\/auth\/memberships$/,
  new RegExp(`^/auth/sessions(/${UUID})?$`),
  new RegExp(`^/auth/passkeys(/registration/options|/registration/verify|/authentication/options|/${UUID})?$`),
  /^\/public\/tenants\/resolve$/,
];
/** Never handed on: the browser's cookies and CSRF token are the console's, and the inner call is the server's own. */
const DROPPED_HEADERS = ['cookie', 'authorization', 'x-csrf-token', 'origin', 'referer', 'content-length'];
/** An encoded slash or backslash could be read as a separator further in; no route of the API has one. */
const ENCODED_SEPARATOR = /%2f|%5c|\\/i;

/** The API URL for `apiPath` (normalised: `..` is resolved before the check), or undefined when the page may not reach it. */
export function apiTarget(requestUrl: string, apiPath: string): URL | undefined {
  if (!apiPath.startsWith('/') || ENCODED_SEPARATOR.test(apiPath)) return undefined;
  const outer = new URL(requestUrl);
  const target = new URL(apiPath + outer.search, outer.origin);
  return ALLOWED.some((pattern) => pattern.test(target.pathname)) ? target : undefined;
}

export async function forwardedRequest(
  c: Context<HonoEnv>,
  target: URL,
  init: { method?: string; accessToken?: string; body?: BodyInit | null } = {},
): Promise<Request> {
  const headers = new Headers(c.req.raw.headers);
  for (const name of DROPPED_HEADERS) headers.delete(name);
  // One correlation id for the console's answer and the API call behind it.
  headers.set('x-correlation-id', c.get('correlationId'));
  if (init.accessToken !== undefined) headers.set('authorization', `Bearer ${init.accessToken}`);
  const method = init.method ?? c.req.method;
  let body: BodyInit | null = null;
  if (init.body !== undefined) body = init.body;
  else if (method !== 'GET' && method !== 'HEAD') body = await c.req.arrayBuffer();
  if (init.body !== undefined && init.body !== null) headers.set('content-type', 'application/json');
  return new Request(target, { method, headers, body });
}

/**
 * The API's answer as the page gets it: status, body and headers, less any cookie an API route might set. Built on the
 * context, so the console's own headers and cookies set before it (a cleared session) go out with it.
 */
export function pageResponse(c: Context<HonoEnv>, inner: Response): Response {
  for (const [name, value] of inner.headers) if (name !== 'set-cookie') c.header(name, value);
  return c.newResponse(inner.body, inner.status as StatusCode);
}
