// Operators: people who act on every tenant (suspend, reactivate, forget its cache). Not an organisation role and not a
// token claim: a bearer secret of their own whose SHA-256 is configured (OPERATOR_TOKEN_HASHES), docs/design/tenants.md#operator-auth.
import { createMiddleware } from 'hono/factory';
import { OPERATOR_SECRET_PATTERN, type OperatorCredential } from '../config/index.ts';
import { sha256Hex, timingSafeEqual } from '../crypto/index.ts';
import { errors } from '../http/app-error.ts';
import type { Guard } from '../http/function-factory.ts';
import type { HonoEnv } from '../http/hono-env.ts';

export interface Operator {
  /** The configured id: what audit rows and logs name. */
  id: string;
}

type OperatorRefusal = 'missing' | 'malformed' | 'unknown';

/**
 * The operator whose secret this is, or why not. Every configured digest is compared, in constant time, whatever matched
 * earlier, so the time says nothing about which entry (if any) came close. A value that is not an operator secret's
 * shape (a tenant's JWT, a guess) is refused before it is hashed.
 */
export async function identifyOperator(
  operators: readonly OperatorCredential[],
  authorization: string | undefined,
): Promise<{ ok: true; operator: Operator } | { ok: false; reason: OperatorRefusal }> {
  const secret = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
  if (secret === undefined) return { ok: false, reason: 'missing' };
  if (!OPERATOR_SECRET_PATTERN.test(secret)) return { ok: false, reason: 'malformed' };
  const digest = await sha256Hex(secret);
  let found: OperatorCredential | undefined;
  for (const operator of operators) {
    if (timingSafeEqual(digest, operator.digest) && found === undefined) found = operator;
  }
  return found === undefined ? { ok: false, reason: 'unknown' } : { ok: true, operator: { id: found.id } };
}

/** Middleware of the /ops routes: `c.get('operator')` afterwards. One answer for every refusal; the WARN says why, never what was sent. */
export const requireOperator = createMiddleware<HonoEnv>(async (c, next) => {
  const deps = c.get('deps');
  if (deps.config.operators.length === 0) throw errors.NOT_CONFIGURED('operator access (OPERATOR_TOKEN_HASHES)');
  const outcome = await identifyOperator(deps.config.operators, c.req.header('authorization'));
  if (!outcome.ok) {
    deps.logger.warn('operator_auth_refused', { reason: outcome.reason, correlationId: c.get('correlationId') });
    throw errors.UNAUTHENTICATED('an operator bearer secret is required');
  }
  c.set('operator', outcome.operator);
  await next();
});

/** The guard of a function's `auth: 'operator'` routes: an operator's own bearer secret (rsop_…), not a JWT. */
export const operatorGuard: Guard = {
  middleware: requireOperator,
  securityScheme: { name: 'operatorAuth' },
  // Anything but a listed operator's secret; no OPERATOR_TOKEN_HASHES at all.
  errors: ['UNAUTHENTICATED', 'NOT_CONFIGURED'],
};
