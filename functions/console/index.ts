// The admin console at /console (docs/console.md): its page, the session routes that keep sign-in's tokens in cookies,
// the dev link, and /console/api/*, which hands the page's calls to this same app with the session's bearer token.
import { Hono } from 'hono';
import { errors } from '../../lib/http/app-error.ts';
import type { HonoEnv } from '../../lib/http/hono-env.ts';
import { readCookie, writeCookie } from '../../lib/console/cookies.ts';
import { checkCsrf, pageCsrfToken } from '../../lib/console/csrf.ts';
import { openDevLoginSession } from '../../lib/console/dev-login.ts';
import { apiTarget, forwardedRequest, pageResponse, type Dispatch } from '../../lib/console/forward.ts';
import { CONSOLE_SCRIPT, CONSOLE_STYLE, consoleShell, UA_PARSER_SCRIPT, WEBAUTHN_SCRIPT } from '../../lib/console/page/index.ts';
import { setConsoleHeaders } from '../../lib/console/security-headers.ts';
import { dropSession, keepSession } from '../../lib/console/session-cookies.ts';
// Sign-in's own answer shapes: the console reads exactly what POST /auth/login, /auth/mfa/verify and /auth/refresh send.
import { mfaEnrolmentRequiredSchema, mfaRequiredSchema, sessionTokensSchema } from '../auth/schemas.ts';
// The context route's answer: after a switch it carries the new tokens, which go into the cookies, never to the page.
import { setContextResponse } from '../sessions/schemas.ts';
import { CONSOLE_PREFIX } from './prefix.ts';
import { mfaCodeBody } from './schemas.ts';

const API_PATH = '/api';

export function createConsoleFunction(dispatch: Dispatch): Hono<HonoEnv> {
  const consoleFunction = new Hono<HonoEnv>();
  const call = async (c: Parameters<Dispatch>[1], path: string, init: Parameters<typeof forwardedRequest>[2] = {}) =>
    dispatch(await forwardedRequest(c, new URL(path, c.req.url), init), c);

  /**
   * Sign-in's answer (password, MFA or refresh) as cookies; the page gets who and until when, and its CSRF token: a new
   * one for a new session, the same one across a refresh (calls already under way still carry it).
   */
  const signedIn = async (c: Parameters<Dispatch>[1], inner: Response, options: { newSession: boolean } = { newSession: true }) => {
    if (inner.status !== 200) return pageResponse(c, inner);
    const body: unknown = await inner.json();
    const mfa = mfaRequiredSchema.safeParse(body);
    if (mfa.success) {
      writeCookie(c, 'mfa', mfa.data.challengeToken, mfa.data.expiresInSeconds);
      return c.json({ status: 'mfa-required' as const, expiresInSeconds: mfa.data.expiresInSeconds }, 200);
    }
    // The console cannot enrol a factor with a sign-in's enrolment token yet (docs/console.md#what-it-does): a clear refusal,
    // never the token to the page; it expires unused.
    if (mfaEnrolmentRequiredSchema.safeParse(body).success) throw errors.MFA_ENROLMENT_REQUIRED();
    const summary = keepSession(c, sessionTokensSchema.parse(body));
    return c.json({ ...summary, csrfToken: await pageCsrfToken(c, { rotate: options.newSession }) }, 200);
  };

  // Every request under the prefix, /console itself included, routed or not.
  consoleFunction.use('*', async (c, next) => {
    if (!c.get('deps').config.console.enabled) throw errors.NOT_FOUND('no such route');
    // Set first, so a refusal below carries them too, and again after: a handed-on API answer replaces the response.
    setConsoleHeaders(c);
    const csrf = await checkCsrf(c);
    if (!csrf.ok) throw errors.CSRF_REFUSED(csrf.reason);
    await next();
    setConsoleHeaders(c, { cacheable: c.req.path.startsWith(`${CONSOLE_PREFIX}/assets/`) });
  });

  consoleFunction.get('/', async (c) =>
    c.html(consoleShell({ csrfToken: await pageCsrfToken(c), signedIn: readCookie(c, 'access') !== undefined })),
  );
  consoleFunction.get('/assets/console.js', (c) => c.body(CONSOLE_SCRIPT, 200, { 'content-type': 'text/javascript; charset=utf-8' }));
  consoleFunction.get('/assets/webauthn.js', (c) => c.body(WEBAUTHN_SCRIPT, 200, { 'content-type': 'text/javascript; charset=utf-8' }));
  consoleFunction.get('/assets/ua-parser.js', (c) => c.body(UA_PARSER_SCRIPT, 200, { 'content-type': 'text/javascript; charset=utf-8' }));
  consoleFunction.get('/assets/console.css', (c) => c.body(CONSOLE_STYLE, 200, { 'content-type': 'text/css; charset=utf-8' }));

  // Password sign-in: the page's body goes to POST /auth/login as it is, so its validation and refusals are the API's.
  consoleFunction.post('/session', async (c) => signedIn(c, await call(c, '/auth/login')));

  // Passkey sign-in: the page's body ({organizationId, response}) goes to the API's verify as it is, and its signed-in
  // answer becomes the same cookie session as a password's (the options come through /console/api: they hold no secret).
  consoleFunction.post('/session/passkey', async (c) => signedIn(c, await call(c, '/auth/passkeys/authentication/verify')));

  consoleFunction.post('/session/mfa', async (c) => {
    const challengeToken = readCookie(c, 'mfa');
    if (challengeToken === undefined) throw errors.UNAUTHENTICATED('no sign-in is waiting for an MFA code; sign in again');
    const parsed = mfaCodeBody.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) throw errors.VALIDATION_FAILED('body: {"code": "<the 6-digit code>"}');
    return signedIn(c, await call(c, '/auth/mfa/verify', { body: JSON.stringify({ challengeToken, code: parsed.data.code }) }));
  });

  consoleFunction.post('/session/refresh', async (c) => {
    const refreshToken = readCookie(c, 'refresh');
    dropSession(c);
    if (refreshToken === undefined) throw errors.UNAUTHENTICATED('not signed in to the console');
    // A refusal leaves the cookies cleared (above); success writes the next pair over them.
    return signedIn(c, await call(c, '/auth/refresh', { body: JSON.stringify({ refreshToken }) }), { newSession: false });
  });

  consoleFunction.post('/session/logout', async (c) => {
    const accessToken = readCookie(c, 'access');
    const refreshToken = readCookie(c, 'refresh');
    let answer = accessToken !== undefined ? await call(c, '/auth/logout', { accessToken, body: null }) : undefined;
    // An expired access token cannot revoke its session: the refresh token buys one that can.
    if ((answer === undefined || answer.status === 401) && refreshToken !== undefined) {
      const refreshed = await call(c, '/auth/refresh', { body: JSON.stringify({ refreshToken }) });
      if (refreshed.status === 200) {
        const tokens = sessionTokensSchema.parse(await refreshed.json());
        // The refresh spent the old pair: the cookies hold the new one, so a logout that fails below can be retried.
        keepSession(c, tokens);
        answer = await call(c, '/auth/logout', { accessToken: tokens.accessToken, body: null });
      } else answer = refreshed;
    }
    // The session may still be live: its cookies stay and the API's error is the answer, so the page says so and can retry.
    if (answer !== undefined && !signOutEnded(answer.status)) return pageResponse(c, answer);
    dropSession(c);
    await pageCsrfToken(c, { rotate: true });
    return c.body(null, 204);
  });

  /**
   * The console's context change: PUT /auth/context with the page's body as it is. Within the session's organisation the
   * answer is handed on; a switch to another answers new tokens, which replace the cookies (the refresh token they held
   * is spent), and the page gets the context and who, where and until when. A refusal (SIGN_IN_REQUIRED included) is the
   * API's answer; the page sends the person to sign in to that organisation.
   */
  consoleFunction.put('/session/context', async (c) => {
    const accessToken = readCookie(c, 'access');
    if (accessToken === undefined) throw errors.UNAUTHENTICATED('not signed in to the console');
    const inner = await call(c, '/auth/context', { method: 'PUT', accessToken });
    if (inner.status !== 200) return pageResponse(c, inner);
    const { context, session } = setContextResponse.parse(await inner.json());
    if (session === undefined) return c.json({ context }, 200);
    return c.json({ context, session: keepSession(c, session) }, 200);
  });

  // APP_ENV=dev only: elsewhere this route does not exist (the same 404 as any unknown path).
  consoleFunction.get('/dev-login', async (c) => {
    const deps = c.get('deps');
    if (deps.config.appEnv !== 'dev') throw errors.NOT_FOUND('no such route');
    const outcome = await openDevLoginSession(deps, c.req.query('code') ?? '', {
      userAgent: c.req.header('user-agent'),
      correlationId: c.get('correlationId'),
    });
    if (!outcome.ok) {
      if (outcome.reason === 'not-dev') throw errors.NOT_FOUND('no such route');
      throw errors.UNAUTHENTICATED(
        'this console link is unknown, used or expired: sign in with the password, or restart npm start for a new link',
      );
    }
    keepSession(c, outcome.tokens);
    await pageCsrfToken(c, { rotate: true });
    // 303 to the page itself: the code leaves the address bar and the history.
    return c.redirect(CONSOLE_PREFIX, 303);
  });

  consoleFunction.all(`${API_PATH}/*`, async (c) => {
    const target = apiTarget(c.req.url, new URL(c.req.url).pathname.slice(`${CONSOLE_PREFIX}${API_PATH}`.length));
    if (target === undefined) throw errors.NOT_FOUND('the console does not reach this API route');
    // A switch answers tokens, which must not reach the page: the console's own route keeps them (above).
    if (target.pathname === '/auth/context' && c.req.method === 'PUT') {
      throw errors.NOT_FOUND('the console changes the context through PUT /console/session/context');
    }
    return pageResponse(c, await call(c, target.pathname + target.search, { ...optionalAccess(readCookie(c, 'access')) }));
  });

  return consoleFunction;
}

/**
 * Whether the API's last answer to a sign-out leaves no usable token behind: logged out (204), or the tokens refused
 * (a 4xx such as 401: the session was already over). A 5xx or a 429 leaves the session as it was.
 */
function signOutEnded(status: number): boolean {
  return status === 204 || (status >= 400 && status < 500 && status !== 429);
}

function optionalAccess(accessToken: string | undefined): { accessToken?: string } {
  return accessToken === undefined ? {} : { accessToken };
}
