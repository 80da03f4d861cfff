// Webhook endpoints and events written straight into PostgreSQL, for the delivery engine's tests (the routes have their own).
import { uuidv7 } from 'uuidv7';
import type { Config } from '../../lib/config/index.ts';
import { endpointSecretBinding, generateEndpointSecret, sealEndpointSecret } from '../../lib/events/endpoint-secret.ts';
import type { TestStack } from './stack.ts';

export interface SeededEndpoint {
  endpointId: string;
  secret: string;
  previousSecret?: string;
}

/** An enabled endpoint subscribed to member.role_changed (and any `events`), its secret sealed as the routes seal it. */
export async function seedEndpoint(
  stack: Pick<TestStack, 'db'> & { config: Config },
  organizationId: string,
  url: string,
  options: { events?: string[]; previousSecretUntil?: Date; failingSince?: Date } = {},
): Promise<SeededEndpoint> {
  const endpointId = uuidv7();
  const secret = generateEndpointSecret();
  const keys = stack.config.secretsKeys;
  const version = options.previousSecretUntil === undefined ? 1 : 2;
  const sealed = await sealEndpointSecret(keys, secret, endpointSecretBinding(organizationId, endpointId, version));
  let previous: { secret: string; keyId: string; ciphertext: string } | undefined;
  if (options.previousSecretUntil !== undefined) {
    const old = generateEndpointSecret();
    previous = { secret: old, ...(await sealEndpointSecret(keys, old, endpointSecretBinding(organizationId, endpointId, 1))) };
  }
  await stack.db.query(
    `INSERT INTO webhook_endpoints (id, organization_id, url, events, secret_key_id, secret_ciphertext, secret_version,
       previous_secret_key_id, previous_secret_ciphertext, previous_secret_version, previous_secret_until, failing_since,
       created_by, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, now(), now())`,
    [
      endpointId,
      organizationId,
      url,
      options.events ?? ['member.role_changed'],
      sealed.keyId,
      sealed.ciphertext,
      version,
      previous?.keyId ?? null,
      previous?.ciphertext ?? null,
      previous === undefined ? null : 1,
      options.previousSecretUntil ?? null,
      options.failingSince ?? null,
      uuidv7(),
    ],
  );
  return { endpointId, secret, ...(previous !== undefined ? { previousSecret: previous.secret } : {}) };
}

/** An audited role change of `targetId` at `at`, as a use case writes it: the trigger fans it out to the endpoints. */
export async function emitRoleChange(
  stack: Pick<TestStack, 'db'>,
  organizationId: string,
  at: Date,
  details: Record<string, string> = { fromRole: 'Viewer', toRole: 'Accountant' },
): Promise<{ auditId: string; targetId: string }> {
  const auditId = uuidv7();
  const targetId = uuidv7();
  await stack.db.query(
    `INSERT INTO audit_events (id, occurred_at, organization_id, target_id, action, correlation_id, details)
     VALUES ($1, $2, $3, $4, 'member.role_changed', 'webhook-delivery-test', $5::jsonb)`,
    [auditId, at.toISOString(), organizationId, targetId, JSON.stringify(details)],
  );
  return { auditId, targetId };
}

export interface DeliveryRow {
  id: string;
  organization_id: string;
  endpoint_id: string;
  state: string;
  attempts: number;
  next_attempt_at: Date | null;
  last_status: number | null;
  last_error: string | null;
  ended_at: Date | null;
}

export async function deliveriesOf(stack: Pick<TestStack, 'db'>, endpointId: string): Promise<DeliveryRow[]> {
  const result = await stack.db.query(
    `SELECT id, organization_id, endpoint_id, state, attempts, next_attempt_at, last_status, last_error, ended_at
       FROM webhook_endpoint_deliveries WHERE endpoint_id = $1 ORDER BY id`,
    [endpointId],
  );
  return result.rows as DeliveryRow[];
}
