// auth.passwordReset.request: the same answer, at the same time, for known and unknown emails. The throttle counts
// first; looking the user up, issuing the token and sending the link happen after the answer where the runtime allows.
import { normalizeEmail } from '../../keys/index.ts';
import { errorKind } from '../../log/logger.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { singleUse } from '../../runtime/single-use/index.ts';
import { throttle } from '../../runtime/throttle/index.ts';
import type { Deps } from '../../deps.ts';
import { resetSchema } from './reset-token.ts';

export interface RequestResetInput {
  organizationId: string;
  email: string;
  /** The caller's address as the runtime reports it, counted per ipSubject (lib/runtime/throttle/ip-subject.ts). */
  clientIp: string | undefined;
  correlationId: string;
}

export type RequestResetOutcome =
  { ok: true } | { ok: false; reason: 'rate-limited'; retryAfterSeconds: number } | { ok: false; reason: 'not-configured' };

/**
 * `defer` runs the delivery after the response (Workers' waitUntil, Node); without it the delivery is awaited, and a
 * known email then answers later than an unknown one by the time of one Redis write and one send (docs/design/password-reset.md#password-reset).
 */
export async function requestReset(
  deps: Deps,
  input: RequestResetInput,
  defer: ((work: Promise<unknown>) => void) | undefined,
): Promise<RequestResetOutcome> {
  const linkBase = deps.config.passwordReset?.linkBase;
  if (linkBase === undefined) return { ok: false, reason: 'not-configured' };
  const email = normalizeEmail(input.email);
  // The tenant is in the key (docs/design/password-reset.md#password-reset): tenant A's requests never use up tenant B's
  // bucket. The per-address counter rides beside it: one Redis round trip for both.
  const counted = await Promise.all([
    throttle.hit(deps, {
      action: 'password-reset',
      scope: { kind: 'org', id: input.organizationId },
      subject: email,
      correlationId: input.correlationId,
    }),
    throttle.hitIp(deps, { action: 'password-reset-ip', clientIp: input.clientIp, correlationId: input.correlationId }),
  ]);
  const refusal = counted.find((outcome) => !outcome.allowed);
  if (refusal !== undefined && !refusal.allowed) return { ok: false, reason: 'rate-limited', retryAfterSeconds: refusal.retryAfterSeconds };
  const delivery = deliverReset(deps, { ...input, email }, linkBase).catch((error: unknown) => {
    // Nothing of the message (it holds the link) and no email: the correlation id finds the request.
    deps.logger.error('password_reset_delivery_failed', { errorKind: errorKind(error), correlationId: input.correlationId });
  });
  if (defer !== undefined) defer(delivery);
  else await delivery;
  return { ok: true };
}

async function deliverReset(deps: Deps, input: RequestResetInput, linkBase: string): Promise<void> {
  const rows = await dbCall('read', 'auth.passwordReset.user', (signal) =>
    deps.db.query<{ id: string; email: string; credential_epoch: number }>(
      `SELECT u.id, u.email, u.credential_epoch FROM users u
        WHERE u.email = $1 AND EXISTS (SELECT 1 FROM role_assignments r WHERE r.user_id = u.id AND r.organization_id = $2)`,
      [input.email, input.organizationId],
      { signal },
    ),
  );
  const user = rows[0];
  if (user === undefined) return;
  const token = await singleUse.issue(deps, 'password-reset', resetSchema, {
    userId: user.id,
    organizationId: input.organizationId,
    // The link sets the password only at this epoch: any password change before its use ends it (migrations/0015).
    credentialEpoch: user.credential_epoch,
    issuedAtUtc: new Date(deps.clock.now()).toISOString(),
    correlationId: input.correlationId,
  });
  // The token rides in the fragment: browsers send neither it nor the fragment to any server, nor in a Referer.
  const link = `${linkBase}#token=${token}`;
  await deps.notifier.send({
    kind: 'password-reset',
    to: user.email,
    subject: 'Reset your password',
    text: `Someone asked to reset the password of this account. To choose a new one, open this link within an hour:\n\n${link}\n\nIf it was not you, ignore this message; your password stays as it is.`,
    correlationId: input.correlationId,
  });
}
