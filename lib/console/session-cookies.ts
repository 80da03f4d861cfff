// Turns sign-in's answers (password, MFA, refresh) into the console's cookies, so no token ever reaches the page.
import type { Context } from 'hono';
import * as z from 'zod';
import type { HonoEnv } from '../http/hono-env.ts';
import { clearCookie, writeCookie } from './cookies.ts';

/** The fields of POST /auth/login, /auth/mfa/verify and /auth/refresh that the console keeps (functions/auth/schemas.ts). */
export const signedInSchema = z.object({
  status: z.literal('signed-in'),
  accessToken: z.string().min(1),
  refreshToken: z.string().min(1),
  expiresInSeconds: z.number().int(),
  userId: z.uuid(),
  organizationId: z.uuid(),
  sessionExpiresAtUtc: z.iso.datetime(),
});
export const mfaRequiredSchema = z.object({
  status: z.literal('mfa-required'),
  challengeToken: z.string().min(1),
  expiresInSeconds: z.number().int(),
});

export type SignedIn = z.infer<typeof signedInSchema>;

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
export function keepSession(c: Context<HonoEnv>, tokens: SignedIn): SessionSummary {
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
