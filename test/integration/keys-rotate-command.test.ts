// `npm run keys:rotate` against a database of its own: the first run makes a current and a next key, a run too soon
// changes nothing (exit 2), each run that changes something is audited, and no key material reaches its output.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSecretsKeys } from '../../lib/config/secrets-keys.ts';
import { openSecret } from '../../lib/crypto/secret-box.ts';
import { signingKeyBinding } from '../../lib/auth/signing-keys/generate-signing-key.ts';
import { readSigningKeys } from '../../lib/auth/signing-keys/stored-keys.ts';
import { createScratchDatabase, DEFAULT_DATABASE_URL, type ScratchDatabase } from '../../local/processes/scratch-database.ts';
import { pgClientDb } from '../../ops/pg-client-db.ts';
import { TEST_SECRETS_KEYS } from '../support/fixtures.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = 'ops/keys-rotate.ts';

let database: ScratchDatabase;
let db: pg.Client;

beforeAll(async () => {
  database = await createScratchDatabase(process.env.TEST_DATABASE_ADMIN_URL ?? DEFAULT_DATABASE_URL, 'test');
  db = new pg.Client({ connectionString: database.url });
  await db.connect();
}, 60_000);

afterAll(async () => {
  await db?.end().catch(() => undefined);
  await database?.drop();
});

function runCli(args: string[], vars: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...vars },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('npm run keys:rotate', () => {
  it('makes the first keys, refuses a rotation too soon, audits, and prints no key material', async () => {
    const vars = { DATABASE_URL: database.url, SECRETS_KEYS: TEST_SECRETS_KEYS, ACCESS_TOKEN_SIGNING: 'EdDSA' };
    const first = await runCli([], vars);
    expect(first.code, first.output).toBe(0);
    expect(first.output).toMatch(/^keys:rotate: made the first keys: current eddsa-\d{8}-[0-9a-f]{12}, next eddsa-/);

    const rows = await readSigningKeys(pgClientDb(db));
    expect(rows.map((row) => [row.state, row.alg]).sort()).toEqual([
      ['current', 'EdDSA'],
      ['next', 'EdDSA'],
    ]);
    const secrets = parseSecretsKeys(TEST_SECRETS_KEYS);
    const material = await Promise.all(
      rows.map(async (row) => {
        const jwk = JSON.parse(await openSecret(secrets, row.sealed, signingKeyBinding(row.kid, row.createdAtMs))) as { d: string };
        return [jwk.d, row.sealed.ciphertext];
      }),
    );

    const soon = await runCli([], vars);
    expect(soon.code, soon.output).toBe(2);
    expect(soon.output).toMatch(/too soon, nothing changed/);
    expect(await readSigningKeys(pgClientDb(db))).toHaveLength(2);

    const audit = await db.query("SELECT correlation_id, details FROM audit_events WHERE action = 'signing_keys.rotated'");
    expect(audit.rows).toEqual([
      { correlation_id: expect.stringMatching(/^ops-keys-rotate-/), details: expect.objectContaining({ created: true }) },
    ]);

    const output = first.output + soon.output;
    for (const secret of [...material.flat(), TEST_SECRETS_KEYS.split(':')[1]!]) expect(output).not.toContain(secret);
  });

  it('refuses arguments without echoing them, and HS256', async () => {
    const pasted = await runCli(['--key', 'pasted-secret-value'], { DATABASE_URL: database.url, SECRETS_KEYS: TEST_SECRETS_KEYS });
    expect(pasted.code).toBe(1);
    expect(pasted.output).not.toContain('pasted-secret-value');
    const hs256 = await runCli([], { DATABASE_URL: database.url, SECRETS_KEYS: TEST_SECRETS_KEYS, ACCESS_TOKEN_SIGNING: 'HS256' });
    expect(hs256.code).toBe(1);
    expect(hs256.output).toMatch(/HS256 has no keys to rotate/);
  });
});
