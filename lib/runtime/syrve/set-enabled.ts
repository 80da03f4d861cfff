// syrve.disable and syrve.enable: the flag and its audit row in PostgreSQL, then the runtime state reset (disable also frees the seat).
import { auditActor, auditStatement } from '../../pg/audit.ts';
import { dbCall } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';
import type { SyrveConnection } from './connection.ts';
import { resetSession } from './reset-session.ts';

export interface SetEnabledInput {
  connection: SyrveConnection;
  enabled: boolean;
  actorUserId: string;
  /** The organisation's API key that made this request, when one did: the audit row's actor in place of the admin. */
  actorApiKeyId?: string | undefined;
  correlationId: string;
}

/**
 * Idempotent: a connection already in the wanted state writes no second audit row, but its runtime state is reset
 * again, so a call that failed at the Redis step (503) is finished by repeating it. Disabling deletes the cached
 * session and logs it out upstream (best effort); enabling closes the reconnect circuit.
 */
export async function setEnabled(deps: Deps, input: SetEnabledInput): Promise<void> {
  const { connection } = input;
  if (connection.enabled !== input.enabled) {
    const now = new Date(deps.clock.now());
    await dbCall('commit', input.enabled ? 'syrve.connection.enable' : 'syrve.connection.disable', (signal) =>
      deps.db.transaction(
        [
          {
            text: 'UPDATE syrve_connections SET enabled = $3, updated_at = $4 WHERE id = $1 AND organization_id = $2',
            params: [connection.connectionId, connection.organizationId, input.enabled, now.toISOString()],
          },
          auditStatement(
            {
              action: input.enabled ? 'syrve.connection_enabled' : 'syrve.connection_disabled',
              ...auditActor(input.actorUserId, input.actorApiKeyId),
              organizationId: connection.organizationId,
              locationId: null,
              targetId: connection.connectionId,
              correlationId: input.correlationId,
            },
            now,
          ),
        ],
        { signal },
      ),
    );
  }
  await resetSession(deps, connection);
}
