// Middleware: a bearer token is accepted on its signature, claims and the denylist alone — one Redis round trip, no PostgreSQL.
import { createMiddleware } from 'hono/factory';
import { revocationUnavailable, tokenRevoked, unauthenticated } from '../http/app-error.ts';
import type { HonoEnv } from '../http/hono-env.ts';
import { isRevoked } from '../runtime/revocation/index.ts';
import { createTokenVerifier, type VerifyToken } from './verify-token.ts';
import type { AuthConfig } from '../config/index.ts';

const verifiers = new WeakMap<AuthConfig, VerifyToken>();
const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/;

export const requireAuth = createMiddleware<HonoEnv>(async (c, next) => {
  const deps = c.get('deps');
  const match = BEARER.exec(c.req.header('authorization') ?? '');
  if (match?.[1] === undefined) throw unauthenticated();
  const principal = await verifierFor(deps.config.auth)(match[1]);
  if (principal === undefined) throw unauthenticated('the bearer token is invalid or expired');
  let revoked: boolean;
  try {
    revoked = await isRevoked(deps.revocation, deps.keys, principal);
  } catch {
    // A revoked token must never pass: no answer from the denylist is a refusal.
    throw revocationUnavailable();
  }
  if (revoked) throw tokenRevoked();
  c.set('principal', principal);
  await next();
});

function verifierFor(auth: AuthConfig): VerifyToken {
  let verify = verifiers.get(auth);
  if (verify === undefined) {
    verify = createTokenVerifier(auth);
    verifiers.set(auth, verify);
  }
  return verify;
}
