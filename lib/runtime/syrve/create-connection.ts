// syrve.create: checks the base URL against the SSRF policy, seals the password, and records the connection with its audit row in one transaction.
import { uuidv7 } from 'uuidv7';
import { sealSecret } from '../../crypto/secret-box.ts';
import { auditActor, auditStatement } from '../../pg/audit.ts';
import { dbCall, sqlState } from '../../pg/unavailable.ts';
import { checkSyrveBaseUrl } from '../../upstream/syrve/index.ts';
import type { Deps } from '../../deps.ts';
import {
  CONNECTION_COLUMNS,
  fromRow,
  passwordBinding,
  toPublicConnection,
  type ConnectionRow,
  type PublicConnection,
} from './connection.ts';

export interface CreateConnectionInput {
  organizationId: string;
  name: string;
  baseUrl: string;
  login: string;
  password: string;
  actorUserId: string;
  /** The organisation's API key that made this request, when one did: the audit row's actor in place of the admin. */
  actorApiKeyId?: string | undefined;
  correlationId: string;
}

export type CreateConnectionOutcome =
  { ok: true; connection: PublicConnection } | { ok: false; reason: 'bad-base-url'; problem: string } | { ok: false; reason: 'name-taken' };

export async function createConnection(deps: Deps, input: CreateConnectionInput): Promise<CreateConnectionOutcome> {
  // Before anything is stored or fetched: the functions must not become a way to reach private addresses.
  const baseUrl = checkSyrveBaseUrl(input.baseUrl, deps.config.appEnv);
  if (!baseUrl.ok) return { ok: false, reason: 'bad-base-url', problem: baseUrl.problem };
  const connectionId = uuidv7();
  const now = new Date(deps.clock.now());
  const sealed = await sealSecret(
    deps.config.secretsKeys,
    input.password,
    passwordBinding({ organizationId: input.organizationId, connectionId, credentialVersion: 1 }),
  );
  const statements = [
    {
      text:
        'INSERT INTO syrve_connections (id, organization_id, name, base_url, login, password_ciphertext, password_key_id, ' +
        `credential_version, enabled, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, 1, true, $8, $8) RETURNING ${CONNECTION_COLUMNS}`,
      params: [
        connectionId,
        input.organizationId,
        input.name,
        baseUrl.url,
        input.login,
        sealed.ciphertext,
        sealed.keyId,
        now.toISOString(),
      ],
    },
    auditStatement(
      {
        action: 'syrve.connection_created',
        ...auditActor(input.actorUserId, input.actorApiKeyId),
        organizationId: input.organizationId,
        locationId: null,
        targetId: connectionId,
        correlationId: input.correlationId,
        details: { credentialVersion: 1 },
      },
      now,
    ),
  ];
  try {
    const [rows] = await dbCall('commit', 'syrve.connection.create', (signal) => deps.db.transaction(statements, { signal }));
    return { ok: true, connection: toPublicConnection(fromRow(rows![0] as unknown as ConnectionRow)) };
  } catch (error) {
    if (sqlState(error) === '23505') return { ok: false, reason: 'name-taken' };
    throw error;
  }
}
