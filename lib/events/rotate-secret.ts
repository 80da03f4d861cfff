// events.rotateSecret: a new signing secret for an endpoint; the one it replaces still signs beside it for 24 hours.
import { conditionalAuditInsert } from '../pg/audit.ts';
import { dbCall } from '../pg/unavailable.ts';
import type { Deps } from '../deps.ts';
import { PREVIOUS_SECRET_GRACE_MS } from './endpoint.ts';
import { endpointSecretBinding, generateEndpointSecret, sealEndpointSecret } from './endpoint-secret.ts';

export type RotateSecretOutcome =
  /** `secret` is the one answer that ever carries it. */
  { ok: true; secret: string; secretVersion: number } | { ok: false; reason: 'not-found' | 'not-configured' | 'busy' };

/** Rotations racing on one endpoint: each seals for the version it read, and the loser reads again. */
const ATTEMPTS = 3;

/**
 * The new secret is sealed for the next version before the write, and the UPDATE takes it only if the version is
 * still the one it read, so two rotations at once never leave a secret sealed for a version it is not stored under.
 * The current secret moves to the previous columns (a secret from an earlier rotation still in its grace is dropped:
 * at most two sign at once), with `webhook.secret_rotated` in the same statement.
 */
export async function rotateSecret(
  deps: Deps,
  input: { organizationId: string; endpointId: string; actorUserId: string; correlationId: string },
): Promise<RotateSecretOutcome> {
  if (deps.config.secretsKeys.length === 0) return { ok: false, reason: 'not-configured' };
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const current = await dbCall('read', 'events.endpoint.secret-version', (signal) =>
      deps.db.query<{ secret_version: number }>(
        'SELECT secret_version FROM webhook_endpoints WHERE id = $1 AND organization_id = $2',
        [input.endpointId, input.organizationId],
        { signal },
      ),
    );
    const version = current[0]?.secret_version;
    if (version === undefined) return { ok: false, reason: 'not-found' };
    const next = version + 1;
    const secret = generateEndpointSecret();
    const sealed = await sealEndpointSecret(
      deps.config.secretsKeys,
      secret,
      endpointSecretBinding(input.organizationId, input.endpointId, next),
    );
    const now = new Date(deps.clock.now());
    const params = [
      input.endpointId,
      input.organizationId,
      sealed.keyId,
      sealed.ciphertext,
      now.toISOString(),
      PREVIOUS_SECRET_GRACE_MS / 1000,
      version,
    ];
    const audit = conditionalAuditInsert(
      {
        action: 'webhook.secret_rotated',
        actorUserId: input.actorUserId,
        organizationId: input.organizationId,
        locationId: null,
        targetId: input.endpointId,
        correlationId: input.correlationId,
        details: { version: next },
      },
      now,
      'EXISTS (SELECT 1 FROM rotated)',
      params.length + 1,
    );
    const rotated = await dbCall('commit', 'events.endpoint.rotate', (signal) =>
      deps.db.query(
        `WITH rotated AS (
           UPDATE webhook_endpoints SET
             previous_secret_key_id = secret_key_id, previous_secret_ciphertext = secret_ciphertext,
             previous_secret_version = secret_version, previous_secret_until = $5::timestamptz + make_interval(secs => $6),
             secret_key_id = $3, secret_ciphertext = $4, secret_version = secret_version + 1, updated_at = $5
           WHERE id = $1 AND organization_id = $2 AND secret_version = $7
           RETURNING secret_version
         ), audited AS (${audit.text})
         SELECT secret_version FROM rotated`,
        [...params, ...audit.params],
        { signal },
      ),
    );
    if (rotated.length > 0) return { ok: true, secret, secretVersion: next };
  }
  return { ok: false, reason: 'busy' };
}
