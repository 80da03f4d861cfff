// Turns sign-in's answers (password, MFA, refresh) into the console's cookies, so no token ever reaches the page.
import type { Context } from 'hono';
import type { HonoEnv } from '../http/hono-env.ts';
import type { SessionTokens } from '../auth/sessions/session-tokens.ts';
import { clearCookie, writeCookie } from './cookies.ts';

/** What the page learns of a session: who, where, until when. */
export interface SessionSummary {
  status: 'signed-in';
  userId: string;
  organizationId: string;
  sessionExpiresAtUtc: string;
}

/**
 * Both cookies live as long as the session: an expired access token is still sent, the API answers 401, and the page
 * asks /console/session/refresh for the next pair.
 */
export function keepSession(c: Context<HonoEnv>, tokens: SessionTokens): SessionSummary {
  const lifeSeconds = (Date.parse(tokens.sessionExpiresAtUtc) - c.get('deps').clock.now()) / 1000;
  writeCookie(c, 'access', tokens.accessToken, lifeSeconds);
  writeCookie(c, 'refresh', tokens.refreshToken, lifeSeconds);
  clearCookie(c, 'mfa');
  return {
    status: 'signed-in',
    userId: tokens.userId,
    organizationId: tokens.organizationId,
    sessionExpiresAtUtc: tokens.sessionExpiresAtUtc,
  };
}

export function dropSession(c: Context<HonoEnv>): void {
  clearCookie(c, 'access');
  clearCookie(c, 'refresh');
  clearCookie(c, 'mfa');
}
