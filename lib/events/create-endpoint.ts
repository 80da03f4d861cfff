// events.create: checks where the events would go, makes and seals the endpoint's secret, and records the endpoint with its audit row.
import { uuidv7 } from 'uuidv7';
import { auditStatement } from '../pg/audit.ts';
import { dbCall, sqlState } from '../pg/unavailable.ts';
import type { Deps } from '../deps.ts';
import { ENDPOINT_COLUMNS, MAX_ENDPOINTS_PER_ORGANIZATION, endpointFromRow, type Endpoint } from './endpoint.ts';
import { endpointSecretBinding, generateEndpointSecret, sealEndpointSecret } from './endpoint-secret.ts';
import type { EventType } from './event-types.ts';
import { checkEndpointUrl } from './url-policy.ts';

export interface CreateEndpointInput {
  organizationId: string;
  url: string;
  events: EventType[];
  description: string | null;
  actorUserId: string;
  correlationId: string;
}

export type CreateEndpointOutcome =
  /** `secret` is the one answer that ever carries it. */
  | { ok: true; endpoint: Endpoint; secret: string }
  | { ok: false; reason: 'bad-url' | 'forbidden-url'; problem: string }
  | { ok: false; reason: 'limit' }
  | { ok: false; reason: 'not-configured' };

/**
 * One transaction: the room check under the organisation's endpoint lock (webhook_endpoint_assert_room,
 * migrations/0028_webhook_endpoints.sql), the row, and `webhook.endpoint_created` (the URL's host only, never its path
 * or query, which may carry a receiver's token).
 */
export async function createEndpoint(deps: Deps, input: CreateEndpointInput): Promise<CreateEndpointOutcome> {
  if (deps.config.secretsKeys.length === 0) return { ok: false, reason: 'not-configured' };
  const checked = await checkEndpointUrl(input.url, { appEnv: deps.config.appEnv, resolveHost: deps.resolveHost });
  if (!checked.ok) return { ok: false, reason: checked.reason === 'bad-url' ? 'bad-url' : 'forbidden-url', problem: checked.problem };
  const endpointId = uuidv7();
  const now = new Date(deps.clock.now());
  const secret = generateEndpointSecret();
  const sealed = await sealEndpointSecret(deps.config.secretsKeys, secret, endpointSecretBinding(input.organizationId, endpointId, 1));
  const events = [...new Set(input.events)];
  const statements = [
    { text: 'SELECT webhook_endpoint_assert_room($1, $2)', params: [input.organizationId, MAX_ENDPOINTS_PER_ORGANIZATION] },
    {
      text:
        'INSERT INTO webhook_endpoints (id, organization_id, url, description, events, secret_key_id, secret_ciphertext, ' +
        `secret_version, state, created_by, created_at, updated_at) VALUES ($1, $2, $3, $4, $5::text[], $6, $7, 1, 'enabled', $8, $9, $9) ` +
        `RETURNING ${ENDPOINT_COLUMNS}`,
      params: [
        endpointId,
        input.organizationId,
        checked.url,
        input.description,
        events,
        sealed.keyId,
        sealed.ciphertext,
        input.actorUserId,
        now.toISOString(),
      ],
    },
    auditStatement(
      {
        action: 'webhook.endpoint_created',
        actorUserId: input.actorUserId,
        organizationId: input.organizationId,
        locationId: null,
        targetId: endpointId,
        correlationId: input.correlationId,
        details: { host: new URL(checked.url).host, eventCount: events.length },
      },
      now,
    ),
  ];
  try {
    const [, rows] = await dbCall('commit', 'events.endpoint.create', (signal) => deps.db.transaction(statements, { signal }));
    return { ok: true, endpoint: endpointFromRow(rows![0]), secret };
  } catch (error) {
    if (sqlState(error) === 'RS413') return { ok: false, reason: 'limit' };
    throw error;
  }
}
