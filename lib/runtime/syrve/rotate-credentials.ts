// syrve.rotate: the credential-rotation webhook's work, in its order — commit the sealed credentials, drop the session, test, audit.
import { sealSecret } from '../../crypto/secret-box.ts';
import { auditStatement, writeAudit } from '../../pg/audit.ts';
import { dbCall, sqlState } from '../../pg/unavailable.ts';
import { errorKind } from '../../log/logger.ts';
import type { Deps } from '../../deps.ts';
import { loadConnection, passwordBinding, type SyrveConnection } from './connection.ts';
import { resetSession } from './reset-session.ts';
import { testConnection } from './use-connection.ts';

export interface RotateInput {
  webhookId: string;
  /** The signed webhook timestamp: orders rotations, so an older one never overwrites a newer one. */
  timestampSeconds: number;
  organizationId: string;
  connectionId: string;
  login: string;
  password: string;
  correlationId: string;
}

export type RotateOutcome =
  | { ok: true; connectionId: string; credentialVersion: number; test: 'ok' | 'failed' }
  | { ok: false; reason: 'not-found' | 'replayed' | 'superseded' };

/** How often a rotation re-seals after another rotation moved the version between its read and its commit. */
const MAX_VERSION_RACES = 3;

export async function rotateCredentials(deps: Deps, input: RotateInput): Promise<RotateOutcome> {
  for (let race = 0; race < MAX_VERSION_RACES; race += 1) {
    const current = await loadConnection(deps, input);
    if (current === undefined) return { ok: false, reason: 'not-found' };
    const committed = await commitRotation(deps, input, current);
    if (committed === 'version-moved') continue;
    if (typeof committed === 'string') return { ok: false, reason: committed };
    return finish(deps, input, committed);
  }
  // Three rotations landed between each read and commit: this one cannot be ordered against them, so it is refused.
  return { ok: false, reason: 'superseded' };
}

async function commitRotation(
  deps: Deps,
  input: RotateInput,
  current: SyrveConnection,
): Promise<SyrveConnection | 'not-found' | 'replayed' | 'superseded' | 'version-moved'> {
  const credentialVersion = current.credentialVersion + 1;
  const sealed = await sealSecret(deps.config.secretsKeys, input.password, passwordBinding({ ...current, credentialVersion }));
  const now = new Date(deps.clock.now());
  try {
    await dbCall('commit', 'syrve.credentials.rotate', (signal) =>
      deps.db.transaction(
        [
          {
            text: 'SELECT syrve_rotate_credentials($1, $2, $3, $4, $5, $6, $7, $8)',
            params: [
              input.webhookId,
              current.organizationId,
              current.connectionId,
              current.credentialVersion,
              new Date(input.timestampSeconds * 1000).toISOString(),
              input.login,
              sealed.ciphertext,
              sealed.keyId,
            ],
          },
          auditStatement(
            {
              action: 'syrve.credentials_rotated',
              actorUserId: null,
              organizationId: current.organizationId,
              locationId: null,
              targetId: current.connectionId,
              correlationId: input.correlationId,
              details: { credentialVersion },
            },
            now,
          ),
        ],
        { signal },
      ),
    );
  } catch (error) {
    const state = sqlState(error);
    if (state === 'RS404') return 'not-found';
    if (state === 'RS409') return 'superseded';
    if (state === 'RS412') return 'version-moved';
    if (state === '23505') return 'replayed';
    throw error;
  }
  return { ...current, login: input.login, sealedPassword: sealed, credentialVersion, updatedAtUtc: now.toISOString() };
}

async function finish(deps: Deps, input: RotateInput, rotated: SyrveConnection): Promise<RotateOutcome> {
  try {
    await resetSession(deps, rotated, { newestVersion: rotated.credentialVersion });
  } catch (error) {
    // Committed already; sessions of the old version stay unused anyway (each read compares the version).
    deps.logger.warn('syrve_rotation_reset_failed', {
      connectionId: rotated.connectionId,
      errorKind: errorKind(error),
      correlationId: input.correlationId,
    });
  }
  let test: 'ok' | 'failed' = 'failed';
  try {
    if (rotated.enabled) test = (await testConnection(deps, rotated, input.correlationId)).test;
  } catch (error) {
    deps.logger.warn('syrve_rotation_test_failed', {
      connectionId: rotated.connectionId,
      errorKind: errorKind(error),
      correlationId: input.correlationId,
    });
  }
  try {
    await dbCall('commit', 'syrve.connection_tested', (signal) =>
      writeAudit(
        deps.db,
        {
          action: 'syrve.connection_tested',
          actorUserId: null,
          organizationId: rotated.organizationId,
          locationId: null,
          targetId: rotated.connectionId,
          correlationId: input.correlationId,
          details: { result: test, trigger: 'rotation', credentialVersion: rotated.credentialVersion },
        },
        new Date(deps.clock.now()),
        { signal },
      ),
    );
  } catch (error) {
    deps.logger.error('syrve_audit_failed', {
      action: 'syrve.connection_tested',
      errorKind: errorKind(error),
      correlationId: input.correlationId,
    });
  }
  return { ok: true, connectionId: rotated.connectionId, credentialVersion: rotated.credentialVersion, test };
}
