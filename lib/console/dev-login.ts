// The dev console link: npm start issues a single-use code for the demo admin, and GET /console/dev-login opens a session
// with it. APP_ENV=dev only, at both ends: no other environment issues such a code or has the route.
import { devLoginSchema } from '../keys/index.ts';
import { openSession } from '../auth/sessions/open-session.ts';
import type { SessionTokens } from '../auth/sessions/session-tokens.ts';
import type { Deps } from '../deps.ts';
import { singleUse } from '../runtime/single-use/index.ts';

// The code's value is declared with its key (lib/keys/defs/single-use.ts).
export { devLoginSchema };

export interface DevLoginUser {
  userId: string;
  organizationId: string;
  email: string;
}

/** The code for npm start's banner; refused outside dev, so no deployment can mint one by mistake. */
export async function issueDevLoginCode(deps: Deps, user: DevLoginUser, correlationId: string): Promise<string> {
  if (deps.config.appEnv !== 'dev') throw new Error('the console dev link exists with APP_ENV=dev only');
  return singleUse.issue(deps, 'console-dev-login', devLoginSchema, {
    ...user,
    issuedAtUtc: new Date(deps.clock.now()).toISOString(),
    correlationId,
  });
}

export type DevLoginOutcome = { ok: true; tokens: SessionTokens } | { ok: false; reason: 'not-dev' | 'invalid' };

/** Consumes the code once and opens a session as sign-in does (audited as session.created, method dev-link). */
export async function openDevLoginSession(
  deps: Deps,
  code: string,
  request: { userAgent: string | undefined; correlationId: string },
): Promise<DevLoginOutcome> {
  if (deps.config.appEnv !== 'dev') return { ok: false, reason: 'not-dev' };
  const consumed = await singleUse.consume(deps, 'console-dev-login', devLoginSchema, code);
  if (!consumed.ok) return { ok: false, reason: 'invalid' };
  const { userId, organizationId, email } = consumed.value;
  const tokens = await openSession(deps, { userId, email, organizationId, method: 'dev-link', ...request });
  return { ok: true, tokens };
}
