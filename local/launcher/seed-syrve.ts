// Seeds the demo Syrve/iiko connection (fixed id, idempotent) at the launcher's fake RMS server, and tells the fake its credentials.
import type { SecretKey } from '../../lib/config/secrets-keys.ts';
import { openSecret, sealSecret, SecretBoxError, type SealedSecret } from '../../lib/crypto/index.ts';
import { sqlState } from '../../lib/pg/unavailable.ts';
import { passwordBinding } from '../../lib/runtime/syrve/connection.ts';
import { DEMO, type SeedClient } from './seed.ts';

/** Fixed, like the demo tenant, so every re-run and every printed command agree on the connection. */
export const DEMO_SYRVE = {
  connectionId: '01900000-0000-7000-8000-00000000d006',
  name: 'Demo RMS (fake iiko server)',
  login: 'demo',
} as const;

export interface DemoConnectionInput {
  /** The fake's base URL (http://127.0.0.1:<port>, already in the form the dev policy stores). */
  baseUrl: string;
  secretsKeys: readonly SecretKey[];
  /** SYRVE_DEMO_PASSWORD: what a new row, or one whose password no longer opens, is given. */
  password: string;
  /** Told the row's current login and password, so the fake accepts whatever the connection holds, rotated or not. */
  upstream: { setAccount(login: string, password: string): void };
}

export interface DemoConnection {
  connectionId: string;
  baseUrl: string;
  login: string;
  credentialVersion: number;
  enabled: boolean;
  created: boolean;
  /** The base URL changed: the fake could not have its previous port. */
  moved: boolean;
  /** The stored password did not open with these keys, so SYRVE_DEMO_PASSWORD was sealed again as the next version. */
  resealed: boolean;
}

const ref = { organizationId: DEMO.organizationId, connectionId: DEMO_SYRVE.connectionId };

/** The port of the stored demo base URL when it is a loopback one, so the fake can take it again and the row need not change. */
export async function demoConnectionPort(client: SeedClient): Promise<number | undefined> {
  const { rows } = await client.query('SELECT base_url FROM syrve_connections WHERE id = $1', [DEMO_SYRVE.connectionId]);
  const stored = rows[0]?.base_url as string | undefined;
  const match = stored === undefined ? null : /^http:\/\/127\.0\.0\.1:(\d{1,5})$/.exec(stored);
  return match === null ? undefined : Number(match[1]);
}

export async function seedDemoConnection(client: SeedClient, input: DemoConnectionInput): Promise<DemoConnection> {
  await client.query('BEGIN');
  try {
    const first = await sealSecret(input.secretsKeys, input.password, passwordBinding({ ...ref, credentialVersion: 1 }));
    const inserted = await client.query(
      `INSERT INTO syrve_connections (id, organization_id, name, base_url, login, password_ciphertext, password_key_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING RETURNING enabled`,
      [ref.connectionId, ref.organizationId, DEMO_SYRVE.name, input.baseUrl, DEMO_SYRVE.login, first.ciphertext, first.keyId],
    );
    const outcome =
      inserted.rows.length > 0
        ? {
            login: DEMO_SYRVE.login,
            password: input.password,
            credentialVersion: 1,
            enabled: true,
            created: true,
            moved: false,
            resealed: false,
          }
        : await keepExisting(client, input);
    await client.query('COMMIT');
    input.upstream.setAccount(outcome.login, outcome.password);
    const { password: _password, ...visible } = outcome;
    return { connectionId: ref.connectionId, baseUrl: input.baseUrl, ...visible };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    if (sqlState(error) === '23505') {
      throw new Error(
        `the demo organisation already has a Syrve connection named "${DEMO_SYRVE.name}" under another id; delete that row, or use a fresh database`,
      );
    }
    throw error;
  }
}

/** Keeps the row and its credentials (rotated ones too); only the base URL follows the fake, and an unreadable password is replaced. */
async function keepExisting(client: SeedClient, input: DemoConnectionInput) {
  const { rows } = await client.query(
    `SELECT base_url, login, credential_version, enabled, password_ciphertext, password_key_id
       FROM syrve_connections WHERE id = $1 AND organization_id = $2 FOR UPDATE`,
    [ref.connectionId, ref.organizationId],
  );
  const row = rows[0] as
    | {
        base_url: string;
        login: string;
        credential_version: number;
        enabled: boolean;
        password_ciphertext: string;
        password_key_id: string;
      }
    | undefined;
  if (row === undefined) throw new Error(`connection ${ref.connectionId} exists outside the demo organisation; delete it`);
  const sealed: SealedSecret = { keyId: row.password_key_id, ciphertext: row.password_ciphertext };
  const current = await openIfPossible(input.secretsKeys, sealed, row.credential_version);
  // A new version, so a runtime session cached for the unreadable credentials is never used again.
  const credentialVersion = current === undefined ? row.credential_version + 1 : row.credential_version;
  const login = current === undefined ? DEMO_SYRVE.login : row.login;
  const stored =
    current === undefined ? await sealSecret(input.secretsKeys, input.password, passwordBinding({ ...ref, credentialVersion })) : sealed;
  const moved = row.base_url !== input.baseUrl;
  if (moved || current === undefined) {
    await client.query(
      `UPDATE syrve_connections SET base_url = $2, login = $3, password_ciphertext = $4, password_key_id = $5, credential_version = $6,
              updated_at = now() WHERE id = $1`,
      [ref.connectionId, input.baseUrl, login, stored.ciphertext, stored.keyId, credentialVersion],
    );
  }
  return {
    login,
    password: current ?? input.password,
    credentialVersion,
    enabled: row.enabled,
    created: false,
    moved,
    resealed: current === undefined,
  };
}

/** The stored password, or undefined when these keys cannot open it (dev-secrets.json replaced, or a database shared with another data folder). */
async function openIfPossible(keys: readonly SecretKey[], sealed: SealedSecret, credentialVersion: number): Promise<string | undefined> {
  try {
    return await openSecret(keys, sealed, passwordBinding({ ...ref, credentialVersion }));
  } catch (error) {
    if (error instanceof SecretBoxError) return undefined;
    throw error;
  }
}
