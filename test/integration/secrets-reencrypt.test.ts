// `npm run secrets:reencrypt` against a scratch PostgreSQL: moves, failures by id, resuming after a stop or a kill, races,
// the CLI's output, and webhook deliveries that still verify after SECRETS_KEYS lost the key their secrets were sealed with.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { uuidv7 } from 'uuidv7';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SecretKey } from '../../lib/config/secrets-keys.ts';
import { bytesToHex, openSecret, sealSecret } from '../../lib/crypto/index.ts';
import type { SecretBinding } from '../../lib/crypto/index.ts';
import { createScratchDatabase, DEFAULT_DATABASE_URL, type ScratchDatabase } from '../../local/processes/scratch-database.ts';
import { totpBinding } from '../../lib/auth/mfa/factor.ts';
import { reencryptSecrets, type ReencryptProgress } from '../../ops/reencrypt.ts';
import { TOTP_SECRETS } from '../../ops/reencrypt/totp-secrets.ts';
import { SIGNING_KEYS } from '../../ops/reencrypt/signing-keys.ts';
import { pgClientDb } from '../../ops/pg-client-db.ts';
import { rotateSigningKeys } from '../../lib/auth/signing-keys/rotate-signing-keys.ts';
import { readSigningKeys } from '../../lib/auth/signing-keys/stored-keys.ts';
import { signingKeyBinding } from '../../lib/auth/signing-keys/generate-signing-key.ts';
import { Webhook } from 'standardwebhooks';
import { createDeps } from '../../lib/create-deps.ts';
import { createJsonLogger } from '../../lib/log/logger.ts';
import { createBudget } from '../../lib/runtime/cron-task/budget.ts';
import { webhookDeliveryTask } from '../../lib/events/delivery/delivery-task.ts';
import { webhookIdOf } from '../../lib/events/delivery/signature.ts';
import { endpointSecretBinding, openEndpointSecret } from '../../lib/events/endpoint-secret.ts';
import { WEBHOOK_PREVIOUS_SECRETS, WEBHOOK_SECRETS } from '../../ops/reencrypt/webhook-secrets.ts';
import { startWebhookReceiver, type ReceivedDelivery, type WebhookReceiver } from '../../local/fakes/index.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { deliveriesOf, emitRoleChange } from '../support/webhook-endpoints.ts';

const ROOT = join(import.meta.dirname, '../..');
const CLI = join(ROOT, 'ops/secrets-reencrypt.ts');

function newKey(kid: string): SecretKey {
  return { kid, key: new Uint8Array(randomBytes(32)) };
}
const oldKey = newKey('old');
const newestKey = newKey('new');
const keys = [newestKey, oldKey];
const env = (list: SecretKey[]) => list.map((k) => `${k.kid}:${Buffer.from(k.key).toString('base64')}`).join(',');

interface Seeded {
  id: string;
  organizationId: string;
  credentialVersion: number;
  password: string;
}

let scratch: ScratchDatabase;
let db: pg.Client;
let organizationId: string;

beforeAll(async () => {
  // A database of its own: the tool walks the whole table, which other test files also write to.
  scratch = await createScratchDatabase(process.env.TEST_DATABASE_ADMIN_URL ?? DEFAULT_DATABASE_URL, 'test');
  db = new pg.Client({ connectionString: scratch.url });
  await db.connect();
  organizationId = uuidv7();
  await db.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [organizationId, 'Reencrypt org']);
});

afterEach(async () => {
  await db.query('DELETE FROM syrve_connections');
});

afterAll(async () => {
  await db?.end();
  await scratch?.drop();
});

const bindingOf = (row: Pick<Seeded, 'id' | 'organizationId' | 'credentialVersion'>): SecretBinding => ({
  purpose: 'syrve-password',
  organizationId: row.organizationId,
  connectionId: row.id,
  credentialVersion: row.credentialVersion,
});

/** `n` connections sealed with `key`, ids in insertion order (uuidv7), versions 1–3, canary passwords. */
async function seed(n: number, key: SecretKey): Promise<Seeded[]> {
  const rows: Seeded[] = [];
  for (let i = 0; i < n; i++) {
    const row = { id: uuidv7(), organizationId, credentialVersion: 1 + (i % 3), password: `canary-pw-${i}-${bytesToHex(randomBytes(6))}` };
    const sealed = await sealSecret([key], row.password, bindingOf(row));
    await db.query(
      `INSERT INTO syrve_connections (id, organization_id, name, base_url, login, password_ciphertext, password_key_id, credential_version)
       VALUES ($1, $2, $3, 'http://127.0.0.1:9/', 'api', $4, $5, $6)`,
      [row.id, organizationId, `conn ${row.id}`, sealed.ciphertext, sealed.keyId, row.credentialVersion],
    );
    rows.push(row);
  }
  return rows;
}

async function stored(): Promise<Map<string, { keyId: string; ciphertext: string; updatedAt: Date }>> {
  const { rows } = await db.query('SELECT id, password_key_id, password_ciphertext, updated_at FROM syrve_connections');
  return new Map(rows.map((r) => [r.id, { keyId: r.password_key_id, ciphertext: r.password_ciphertext, updatedAt: r.updated_at }]));
}

/** Every row opens with the key it names, under its own binding, to the password it was seeded with. */
async function expectAllOpen(seeded: Seeded[], using: SecretKey[] = keys): Promise<void> {
  const now = await stored();
  for (const row of seeded) {
    const sealed = now.get(row.id)!;
    expect(await openSecret(using, sealed, bindingOf(row))).toBe(row.password);
  }
}

describe('reencryptSecrets', () => {
  it('moves every row to the newest key in batches, then finds nothing to do', async () => {
    const old = await seed(25, oldKey);
    const current = await seed(3, newestKey);
    const before = await stored();
    const events: ReencryptProgress[] = [];
    const result = await reencryptSecrets(db, keys, { batchSize: 10, onProgress: (p) => events.push(p) });

    expect(result).toEqual({ total: 25, moved: 25, skipped: 0, failed: [], remaining: 0, stopped: false });
    expect(events).toEqual([
      { kind: 'start', newestKeyId: 'new', total: 25, byKeyId: { old: 25 } },
      { kind: 'batch', batch: 1, moved: 10, skipped: 0, failed: 0, total: 25 },
      { kind: 'batch', batch: 2, moved: 20, skipped: 0, failed: 0, total: 25 },
      { kind: 'batch', batch: 3, moved: 25, skipped: 0, failed: 0, total: 25 },
    ]);
    const after = await stored();
    for (const row of old) {
      expect(after.get(row.id)!.keyId).toBe('new');
      expect(after.get(row.id)!.updatedAt.getTime()).toBeGreaterThanOrEqual(before.get(row.id)!.updatedAt.getTime());
    }
    // The old key is no longer needed; rows already on the new key were not touched.
    await expectAllOpen([...old, ...current], [newestKey]);
    for (const row of current) expect(after.get(row.id)).toEqual(before.get(row.id));

    const again = await reencryptSecrets(db, keys, { batchSize: 10 });
    expect(again).toEqual({ total: 0, moved: 0, skipped: 0, failed: [], remaining: 0, stopped: false });
  });

  it('counts only on a dry run', async () => {
    await seed(4, oldKey);
    const before = await stored();
    expect(await reencryptSecrets(db, keys, { batchSize: 2, dryRun: true })).toMatchObject({ total: 4, moved: 0, remaining: 4 });
    expect(await stored()).toEqual(before);
  });

  it('reports a row that does not open by its id, counts it failed, and moves the others', async () => {
    const rows = await seed(12, oldKey);
    const [corrupted, copied, orphaned] = [rows[2]!, rows[5]!, rows[9]!];
    const original = await stored();
    const flip = (text: string) => text.slice(0, 20) + (text[20] === 'A' ? 'B' : 'A') + text.slice(21);
    await db.query('UPDATE syrve_connections SET password_ciphertext = $1 WHERE id = $2', [
      flip(original.get(corrupted.id)!.ciphertext),
      corrupted.id,
    ]);
    // Another row's ciphertext, under that row's key: the binding refuses it.
    await db.query('UPDATE syrve_connections SET password_ciphertext = $1 WHERE id = $2', [
      original.get(rows[0]!.id)!.ciphertext,
      copied.id,
    ]);
    await db.query("UPDATE syrve_connections SET password_key_id = 'retired' WHERE id = $1", [orphaned.id]);

    const events: ReencryptProgress[] = [];
    const result = await reencryptSecrets(db, keys, { batchSize: 5, onProgress: (p) => events.push(p) });
    expect(result.failed).toEqual([
      { id: corrupted.id, reason: 'does-not-open' },
      { id: copied.id, reason: 'does-not-open' },
      { id: orphaned.id, reason: 'unknown-key' },
    ]);
    expect(result).toMatchObject({ total: 12, moved: 9, skipped: 0, remaining: 3 });
    expect(events.filter((e) => e.kind === 'failed').map((e) => e.kind === 'failed' && e.id)).toEqual([
      corrupted.id,
      copied.id,
      orphaned.id,
    ]);
    expect(events.at(-1)).toEqual({ kind: 'batch', batch: 3, moved: 9, skipped: 0, failed: 3, total: 12 });
    const failedIds = new Set([corrupted.id, copied.id, orphaned.id]);
    await expectAllOpen(
      rows.filter((r) => !failedIds.has(r.id)),
      [newestKey],
    );
    // What is reported carries ids and counts only.
    const reported = JSON.stringify([events, result]);
    for (const row of rows) expect(reported).not.toContain(row.password);
    for (const sealed of original.values()) expect(reported).not.toContain(sealed.ciphertext);
  });

  it('stops between batches when asked, leaving every row readable, and a rerun finishes the job', async () => {
    const rows = await seed(30, oldKey);
    const stop = new AbortController();
    const first = await reencryptSecrets(db, keys, {
      batchSize: 8,
      signal: stop.signal,
      onProgress: (p) => p.kind === 'batch' && stop.abort(),
    });
    expect(first).toMatchObject({ total: 30, moved: 8, remaining: 22, stopped: true });
    const midway = [...(await stored()).values()].map((r) => r.keyId);
    expect(midway.filter((k) => k === 'new')).toHaveLength(8);
    await expectAllOpen(rows);

    const second = await reencryptSecrets(db, keys, { batchSize: 8 });
    expect(second).toMatchObject({ total: 22, moved: 22, remaining: 0, stopped: false });
    await expectAllOpen(rows, [newestKey]);
  });

  // A function still on the old SECRETS_KEYS (mid-deploy) seals with the old key: only the ciphertext check catches that.
  it.each([
    ['the new key', newestKey, 0],
    ['the old key (a function not yet redeployed)', oldKey, 1],
  ] as const)('skips a row rotated under %s between its read and its write, keeping the rotation', async (_, rotationKey, left) => {
    const rows = await seed(3, oldKey);
    const target = rows[1]!;
    const rotated = { ...target, credentialVersion: target.credentialVersion + 1, password: 'canary-rotated-pw' };
    let raced = false;
    // The webhook commits new credentials just before our UPDATE of that row reaches the database.
    const racing = {
      query: async (text: string, params?: unknown[]) => {
        if (!raced && text.startsWith('UPDATE') && (params?.[1] as string[] | undefined)?.includes(target.id) === true) {
          raced = true;
          const sealed = await sealSecret([rotationKey], rotated.password, bindingOf(rotated));
          await db.query(
            'UPDATE syrve_connections SET password_ciphertext = $1, password_key_id = $2, credential_version = $3 WHERE id = $4',
            [sealed.ciphertext, sealed.keyId, rotated.credentialVersion, target.id],
          );
        }
        return db.query(text, params);
      },
    };
    const result = await reencryptSecrets(racing, keys, { batchSize: 10 });
    expect(raced).toBe(true);
    expect(result).toMatchObject({ total: 3, moved: 2, skipped: 1, failed: [], remaining: left });
    await expectAllOpen([rows[0]!, rotated, rows[2]!]);
    // The next pass picks up whatever is still on the old key.
    expect(await reencryptSecrets(db, keys, { batchSize: 10 })).toMatchObject({ total: left, moved: left, remaining: 0 });
    await expectAllOpen([rows[0]!, rotated, rows[2]!], [newestKey]);
  });

  it('skips a row whose rotation commits while our UPDATE waits for its lock', async () => {
    const rows = await seed(3, oldKey);
    const target = rows[1]!;
    const rotated = { ...target, credentialVersion: target.credentialVersion + 1, password: 'canary-rotated-pw' };
    const webhook = new pg.Client({ connectionString: scratch.url });
    await webhook.connect();
    try {
      let waited: Promise<unknown> | undefined;
      const racing = {
        query: async (text: string, params?: unknown[]) => {
          if (waited !== undefined || !text.startsWith('UPDATE')) return db.query(text, params);
          // The rotation's transaction holds the row; ours queues behind it and re-checks the row after its commit.
          const sealed = await sealSecret([oldKey], rotated.password, bindingOf(rotated));
          await webhook.query('BEGIN');
          await webhook.query('UPDATE syrve_connections SET password_ciphertext = $1, credential_version = $2 WHERE id = $3', [
            sealed.ciphertext,
            rotated.credentialVersion,
            target.id,
          ]);
          const ours = db.query(text, params);
          waited = new Promise((resolve) => setTimeout(resolve, 200)).then(() => webhook.query('COMMIT'));
          await waited;
          return ours;
        },
      };
      const result = await reencryptSecrets(racing, keys, { batchSize: 10 });
      expect(result).toMatchObject({ total: 3, moved: 2, skipped: 1, failed: [], remaining: 1 });
      await expectAllOpen([rows[0]!, rotated, rows[2]!]);
    } finally {
      await webhook.end();
    }
  });

  it('moves each row once when two runs race', async () => {
    const rows = await seed(40, oldKey);
    const other = new pg.Client({ connectionString: scratch.url });
    await other.connect();
    try {
      const [a, b] = await Promise.all([reencryptSecrets(db, keys, { batchSize: 5 }), reencryptSecrets(other, keys, { batchSize: 5 })]);
      expect(a.moved + b.moved).toBe(40);
      expect(a.failed.length + b.failed.length).toBe(0);
    } finally {
      await other.end();
    }
    await expectAllOpen(rows, [newestKey]);
  });
});

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI under node with tsx's loader (not the tsx binary), so a kill reaches the process doing the work. */
function runCli(args: string[], vars: Record<string, string>, killAfter?: RegExp, signal: NodeJS.Signals = 'SIGKILL'): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...vars },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (killAfter?.test(stdout) === true) {
        killAfter = undefined;
        child.kill(signal);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

describe('npm run secrets:reencrypt', () => {
  const secretsKeys = env(keys);
  const forbiddenKeyMaterial = keys.flatMap((k) => [
    Buffer.from(k.key).toString('base64'),
    Buffer.from(k.key).toString('base64url'),
    bytesToHex(k.key),
  ]);

  function expectNothingSecret(run: Run, seeded: Seeded[]): void {
    const output = run.stdout + run.stderr;
    for (const value of forbiddenKeyMaterial) expect(output).not.toContain(value);
    for (const row of seeded) expect(output).not.toContain(row.password);
  }

  it('prints the total, one line per batch and a summary, and nothing secret', async () => {
    const rows = await seed(15, oldKey);
    const ciphertexts = [...(await stored()).values()].map((r) => r.ciphertext);
    const dry = await runCli(['--dry-run'], { DATABASE_URL: scratch.url, SECRETS_KEYS: secretsKeys });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('Syrve passwords: 15 rows to move to key new (old: 15)');

    const run = await runCli(['--batch-size', '4'], { DATABASE_URL: scratch.url, SECRETS_KEYS: secretsKeys });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toEqual([
      'secrets:reencrypt: Syrve passwords: 15 rows to move to key new (old: 15)',
      'secrets:reencrypt: Syrve passwords: batch 1: 4/15 moved, 0 skipped, 0 failed',
      'secrets:reencrypt: Syrve passwords: batch 2: 8/15 moved, 0 skipped, 0 failed',
      'secrets:reencrypt: Syrve passwords: batch 3: 12/15 moved, 0 skipped, 0 failed',
      'secrets:reencrypt: Syrve passwords: batch 4: 15/15 moved, 0 skipped, 0 failed',
      'secrets:reencrypt: Syrve passwords: done: 15 moved, 0 skipped, 0 failed; 0 rows on an older key',
      'secrets:reencrypt: TOTP secrets: 0 rows to move to key new',
      'secrets:reencrypt: TOTP secrets: done: 0 moved, 0 skipped, 0 failed; 0 rows on an older key',
      'secrets:reencrypt: Signing keys: 0 rows to move to key new',
      'secrets:reencrypt: Signing keys: done: 0 moved, 0 skipped, 0 failed; 0 rows on an older key',
      'secrets:reencrypt: Webhook secrets: 0 rows to move to key new',
      'secrets:reencrypt: Webhook secrets: done: 0 moved, 0 skipped, 0 failed; 0 rows on an older key',
      'secrets:reencrypt: Webhook previous secrets: 0 rows to move to key new',
      'secrets:reencrypt: Webhook previous secrets: done: 0 moved, 0 skipped, 0 failed; 0 rows on an older key',
    ]);
    expectNothingSecret(run, rows);
    for (const ciphertext of ciphertexts) expect(run.stdout).not.toContain(ciphertext);
    await expectAllOpen(rows, [newestKey]);
    // Positive control: the canaries are the kind of text the check would find.
    expect(`x${rows[0]!.password}x${forbiddenKeyMaterial[0]}`).toContain(rows[0]!.password);
  });

  it('lists a row that does not open by id and exits 2', async () => {
    const rows = await seed(3, oldKey);
    await db.query(
      "UPDATE syrve_connections SET password_ciphertext = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' WHERE id = $1",
      [rows[1]!.id],
    );
    const run = await runCli([], { DATABASE_URL: scratch.url, SECRETS_KEYS: secretsKeys });
    expect(run.code).toBe(2);
    expect(run.stdout).toContain(`secrets:reencrypt: Syrve passwords: row ${rows[1]!.id} failed: does-not-open`);
    expect(run.stdout).toContain('Syrve passwords: done: 2 moved, 0 skipped, 1 failed; 1 rows on an older key');
    expectNothingSecret(run, rows);
  });

  it('refuses bad settings with exit 1 and without echoing them', async () => {
    const pasted = `canary-arg-${bytesToHex(randomBytes(8))}`;
    const runs = [
      await runCli([`--key=${pasted}`], { DATABASE_URL: scratch.url, SECRETS_KEYS: secretsKeys }),
      await runCli([pasted], { DATABASE_URL: scratch.url, SECRETS_KEYS: secretsKeys }),
      await runCli([], { DATABASE_URL: scratch.url, SECRETS_KEYS: `k1:${pasted}` }),
      await runCli([], { DATABASE_URL: scratch.url }),
      await runCli([], { SECRETS_KEYS: secretsKeys }),
      await runCli(['--batch-size', '0'], { DATABASE_URL: scratch.url, SECRETS_KEYS: secretsKeys }),
    ];
    for (const run of runs) {
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^secrets:reencrypt: /);
      expect(run.stdout + run.stderr).not.toContain(pasted);
      expectNothingSecret(run, []);
    }
  });

  it('can be killed at any moment: every row still opens and a rerun finishes', async () => {
    const rows = await seed(200, oldKey);
    const killed = await runCli(['--batch-size', '1'], { DATABASE_URL: scratch.url, SECRETS_KEYS: secretsKeys }, /batch 3:/);
    expect(killed.signal).toBe('SIGKILL');
    const midway = [...(await stored()).values()].filter((r) => r.keyId === 'new').length;
    expect(midway).toBeGreaterThanOrEqual(3);
    expect(midway).toBeLessThan(200);
    await expectAllOpen(rows);

    const rerun = await runCli(['--batch-size', '50'], { DATABASE_URL: scratch.url, SECRETS_KEYS: secretsKeys });
    expect(rerun.code).toBe(0);
    expect(rerun.stdout).toContain(`Syrve passwords: ${200 - midway} rows to move`);
    await expectAllOpen(rows, [newestKey]);
  });

  it('stops after the batch in hand on SIGINT and exits 2', async () => {
    const rows = await seed(200, oldKey);
    const stopped = await runCli(['--batch-size', '1'], { DATABASE_URL: scratch.url, SECRETS_KEYS: secretsKeys }, /batch 2:/, 'SIGINT');
    expect(stopped.code).toBe(2);
    expect(stopped.stderr).toContain('SIGINT: stopping after this batch');
    expect(stopped.stdout).toMatch(/Syrve passwords: done: \d+ moved, 0 skipped, 0 failed; \d+ rows on an older key \(stopped early\)/);
    // The next column is not started after a stop: its rows were not counted, so the older key must stay.
    expect(stopped.stdout).not.toContain('TOTP secrets');
    await expectAllOpen(rows);
  });
});

describe('TOTP secrets', () => {
  afterEach(async () => {
    await db.query('DELETE FROM user_mfa');
  });

  interface Factor {
    userId: string;
    enrolledAtMs: number;
    secret: string;
  }

  /** `n` users with a factor sealed with `key` (confirmed or pending alternately), canary secrets. */
  async function enrol(n: number, key: SecretKey): Promise<Factor[]> {
    const factors: Factor[] = [];
    for (let i = 0; i < n; i++) {
      const factor = {
        userId: uuidv7(),
        enrolledAtMs: Date.now() - i * 1000,
        secret: `CANARYTOTP${i}${bytesToHex(randomBytes(6)).toUpperCase()}`,
      };
      const sealed = await sealSecret([key], factor.secret, totpBinding(factor.userId, factor.enrolledAtMs));
      await db.query('INSERT INTO users (id, email) VALUES ($1, $2)', [factor.userId, `totp-${factor.userId}@example.test`]);
      await db.query(
        'INSERT INTO user_mfa (user_id, secret_ciphertext, secret_key_id, enrolled_at, confirmed_at) VALUES ($1, $2, $3, $4, $5)',
        [factor.userId, sealed.ciphertext, sealed.keyId, new Date(factor.enrolledAtMs), i % 2 === 0 ? new Date() : null],
      );
      factors.push(factor);
    }
    return factors;
  }

  async function storedFactors(): Promise<Map<string, { keyId: string; ciphertext: string; confirmed: boolean }>> {
    const { rows } = await db.query('SELECT user_id, secret_key_id, secret_ciphertext, confirmed_at FROM user_mfa');
    return new Map(
      rows.map((r) => [r.user_id, { keyId: r.secret_key_id, ciphertext: r.secret_ciphertext, confirmed: r.confirmed_at !== null }]),
    );
  }

  it('moves every factor to the newest key, keeps each confirmation, and every secret opens with the newest key alone', async () => {
    const factors = await enrol(7, oldKey);
    const before = await storedFactors();
    const result = await reencryptSecrets(db, keys, { batchSize: 3 }, TOTP_SECRETS);
    expect(result).toEqual({ total: 7, moved: 7, skipped: 0, failed: [], remaining: 0, stopped: false });
    const after = await storedFactors();
    for (const factor of factors) {
      const row = after.get(factor.userId)!;
      expect(row.keyId).toBe('new');
      expect(row.confirmed).toBe(before.get(factor.userId)!.confirmed);
      expect(await openSecret([newestKey], row, totpBinding(factor.userId, factor.enrolledAtMs))).toBe(factor.secret);
    }
  });

  it('names a factor that does not open by its user id, moves the rest, and the CLI moves both columns, printing no secret', async () => {
    const factors = await enrol(4, oldKey);
    // Sealed for another user: its binding does not match the row, as a copied row's would not.
    const copied = await sealSecret([oldKey], 'CANARYCOPIED', totpBinding(uuidv7(), factors[2]!.enrolledAtMs));
    await db.query('UPDATE user_mfa SET secret_ciphertext = $1 WHERE user_id = $2', [copied.ciphertext, factors[2]!.userId]);
    const passwords = await seed(2, oldKey);
    const run = await runCli([], { DATABASE_URL: scratch.url, SECRETS_KEYS: env(keys) });
    expect(run.code).toBe(2);
    expect(run.stdout).toContain('Syrve passwords: done: 2 moved, 0 skipped, 0 failed; 0 rows on an older key');
    expect(run.stdout).toContain(`TOTP secrets: row ${factors[2]!.userId} failed: does-not-open`);
    expect(run.stdout).toContain('TOTP secrets: done: 3 moved, 0 skipped, 1 failed; 1 rows on an older key');
    for (const secret of [...factors.map((f) => f.secret), 'CANARYCOPIED', ...passwords.map((p) => p.password)]) {
      expect(run.stdout + run.stderr).not.toContain(secret);
    }
  });
});

describe('the signing keys', () => {
  it('moves every stored private key to the newest key, each opening with it alone under its own kid', async () => {
    const made = await rotateSigningKeys(
      { db: pgClientDb(db), secretsKeys: [oldKey] },
      { alg: 'ES256', nowMs: Date.now(), minIntervalMs: 0, correlationId: 'reencrypt-test' },
    );
    expect(made).toMatchObject({ ok: true, created: true });
    const before = await readSigningKeys(pgClientDb(db));
    const opened = new Map(
      await Promise.all(
        before.map(async (row) => [row.kid, await openSecret([oldKey], row.sealed, signingKeyBinding(row.kid, row.createdAtMs))] as const),
      ),
    );
    const result = await reencryptSecrets(db, keys, { batchSize: 1 }, SIGNING_KEYS);
    expect(result).toEqual({ total: 2, moved: 2, skipped: 0, failed: [], remaining: 0, stopped: false });
    for (const row of await readSigningKeys(pgClientDb(db))) {
      expect(row.sealed.keyId).toBe('new');
      expect(await openSecret([newestKey], row.sealed, signingKeyBinding(row.kid, row.createdAtMs))).toBe(opened.get(row.kid));
    }
    // The CLI tests above expect no signing keys in this database.
    await db.query('DELETE FROM signing_keys');
  });
});

describe("the webhook endpoints' secrets", () => {
  let stack: TestStack;
  const receivers: WebhookReceiver[] = [];
  beforeAll(async () => {
    // The app of a deployment still on the old key alone: the endpoints' secrets it makes and rotates are sealed with it.
    stack = await startStack({ databaseUrl: scratch.url, env: { SECRETS_KEYS: env([oldKey]) } });
  });
  afterEach(async () => {
    for (const receiver of receivers.splice(0)) await receiver.close();
    await db.query('DELETE FROM webhook_endpoints');
  });
  afterAll(async () => stack?.close());

  const base = (organizationId: string) => `/orgs/${organizationId}/webhook-endpoints`;

  async function createEndpoint(organizationId: string, token: string, url: string): Promise<{ endpointId: string; secret: string }> {
    const response = await stack.request('POST', base(organizationId), { token, body: { url, events: ['member.role_changed'] } });
    expect(response.status).toBe(201);
    const created = (await response.json()) as { endpoint: { endpointId: string }; secret: string };
    return { endpointId: created.endpoint.endpointId, secret: created.secret };
  }

  async function rotate(organizationId: string, token: string, endpointId: string): Promise<string> {
    const response = await stack.request('POST', `${base(organizationId)}/${endpointId}/rotate-secret`, { token });
    expect(response.status).toBe(200);
    return ((await response.json()) as { secret: string }).secret;
  }

  async function storedEndpoints(): Promise<Array<Record<string, unknown>>> {
    const { rows } = await db.query(
      `SELECT id, secret_key_id, secret_ciphertext, secret_version, previous_secret_key_id, previous_secret_ciphertext,
              previous_secret_version, previous_secret_until, updated_at FROM webhook_endpoints ORDER BY id`,
    );
    return rows as Array<Record<string, unknown>>;
  }

  /**
   * One role change sent by an isolate whose SECRETS_KEYS holds the newest key alone (the old one dropped); what each
   * endpoint received, by endpoint id. A secret still sealed with the old key would fail the attempt (secret-unavailable).
   */
  async function deliverWithNewestKeyOnly(organizationId: string, hook: WebhookReceiver, endpointIds: string[]) {
    const deps = createDeps({ ...stack.config, secretsKeys: [newestKey] }, { logger: createJsonLogger((line) => stack.logs.push(line)) });
    await emitRoleChange(stack, organizationId, new Date(deps.clock.now()));
    await webhookDeliveryTask.run(deps, createBudget({ commands: 1_000, timeMs: 10_000 }, deps.clock), {
      correlationId: 'secrets-reencrypt-test',
    });
    const arrived = new Map<string, ReceivedDelivery>();
    for (const endpointId of endpointIds) {
      const [delivery] = await deliveriesOf(stack, endpointId);
      expect(delivery).toMatchObject({ state: 'succeeded', attempts: 1 });
      const received = hook.received.find((r) => r.webhookId === webhookIdOf(delivery!.id));
      expect(received).toBeDefined();
      arrived.set(endpointId, received!);
    }
    return arrived;
  }

  /** Each signature of the header verifies alone with the secret in the same place (current first, then previous). */
  function expectSignedBy(arrived: ReceivedDelivery, secrets: string[]): void {
    const signatures = arrived.signature.split(' ');
    expect(signatures).toHaveLength(secrets.length);
    for (const [index, secret] of secrets.entries()) {
      const headers = { 'webhook-id': arrived.webhookId, 'webhook-timestamp': arrived.timestamp, 'webhook-signature': signatures[index]! };
      expect(() => new Webhook(secret).verify(arrived.body, headers, { jsonParse: false })).not.toThrow();
    }
  }

  it('moves the current and the previous secrets to the newest key, deliveries still verify with the secrets the admin got, and nothing secret is printed', async () => {
    const org = await stack.seedOrganization();
    const hook = await startWebhookReceiver();
    receivers.push(hook);
    const rotated = await createEndpoint(org.organizationId, org.adminToken, hook.url);
    const first = rotated.secret;
    const current = await rotate(org.organizationId, org.adminToken, rotated.endpointId);
    const plain = await createEndpoint(org.organizationId, org.adminToken, hook.url);
    const before = await storedEndpoints();
    expect(before.flatMap((row) => [row.secret_key_id, row.previous_secret_key_id]).filter((kid) => kid !== null)).toEqual([
      'old',
      'old',
      'old',
    ]);
    // Positive control: with the old key dropped and nothing moved, the secret does not open.
    await expect(
      openEndpointSecret(
        [newestKey],
        { keyId: String(before[0]!.secret_key_id), ciphertext: String(before[0]!.secret_ciphertext) },
        endpointSecretBinding(org.organizationId, String(before[0]!.id), Number(before[0]!.secret_version)),
      ),
    ).rejects.toThrow();

    const run = await runCli([], { DATABASE_URL: scratch.url, SECRETS_KEYS: env(keys) });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('secrets:reencrypt: Webhook secrets: 2 rows to move to key new (old: 2)');
    expect(run.stdout).toContain('secrets:reencrypt: Webhook secrets: done: 2 moved, 0 skipped, 0 failed; 0 rows on an older key');
    expect(run.stdout).toContain('secrets:reencrypt: Webhook previous secrets: 1 rows to move to key new (old: 1)');
    expect(run.stdout).toContain('secrets:reencrypt: Webhook previous secrets: done: 1 moved, 0 skipped, 0 failed; 0 rows on an older key');
    // The canary: no secret (nor its base64 alone), no ciphertext, no key in anything the command wrote.
    const output = run.stdout + run.stderr;
    const secrets = [first, current, plain.secret];
    const forbidden = [
      ...secrets,
      ...secrets.map((secret) => secret.slice('whsec_'.length)),
      ...before.flatMap((row) => [row.secret_ciphertext, row.previous_secret_ciphertext]).filter((c): c is string => c !== null),
      ...keys.flatMap((k) => [Buffer.from(k.key).toString('base64'), Buffer.from(k.key).toString('base64url'), bytesToHex(k.key)]),
    ];
    for (const value of forbidden) expect(output).not.toContain(value);
    expect(`x${output}${first}x`).toContain(first);

    // Only the key id and the ciphertext changed: the versions, the overlap's end and updated_at are as they were.
    const after = await storedEndpoints();
    for (const [index, row] of after.entries()) {
      const was = before[index]!;
      expect(row.secret_key_id).toBe('new');
      expect(row.secret_ciphertext).not.toBe(was.secret_ciphertext);
      expect(row.previous_secret_key_id).toBe(was.previous_secret_key_id === null ? null : 'new');
      const unchanged = ({ secret_version, previous_secret_version, previous_secret_until, updated_at }: Record<string, unknown>) => ({
        secret_version,
        previous_secret_version,
        previous_secret_until,
        updated_at,
      });
      expect(unchanged(row)).toEqual(unchanged(was));
    }

    const arrived = await deliverWithNewestKeyOnly(org.organizationId, hook, [rotated.endpointId, plain.endpointId]);
    expectSignedBy(arrived.get(rotated.endpointId)!, [current, first]);
    expectSignedBy(arrived.get(plain.endpointId)!, [plain.secret]);
    expect(await runCli([], { DATABASE_URL: scratch.url, SECRETS_KEYS: env(keys) })).toMatchObject({ code: 0 });
  });

  it('leaves a secret rotated between its read and its write to the rotation, and moves the one the rotation kept', async () => {
    const org = await stack.seedOrganization();
    const hook = await startWebhookReceiver();
    receivers.push(hook);
    const endpoint = await createEndpoint(org.organizationId, org.adminToken, hook.url);
    let rotatedSecret: string | undefined;
    // An admin rotates through a function still on the old SECRETS_KEYS just before our UPDATE of that row lands.
    const racing = {
      query: async (text: string, params?: unknown[]) => {
        if (rotatedSecret === undefined && text.includes('SET secret_ciphertext')) {
          rotatedSecret = await rotate(org.organizationId, org.adminToken, endpoint.endpointId);
        }
        return db.query(text, params);
      },
    };
    const currentPass = await reencryptSecrets(racing, keys, { batchSize: 10 }, WEBHOOK_SECRETS);
    expect(rotatedSecret).toBeDefined();
    expect(currentPass).toMatchObject({ total: 1, moved: 0, skipped: 1, failed: [], remaining: 1 });
    // The secret the rotation moved aside is still on the old key; the previous column's pass takes it there.
    expect(await reencryptSecrets(db, keys, { batchSize: 10 }, WEBHOOK_PREVIOUS_SECRETS)).toMatchObject({
      total: 1,
      moved: 1,
      remaining: 0,
    });
    expect(await reencryptSecrets(db, keys, { batchSize: 10 }, WEBHOOK_SECRETS)).toMatchObject({ total: 1, moved: 1, remaining: 0 });

    const arrived = await deliverWithNewestKeyOnly(org.organizationId, hook, [endpoint.endpointId]);
    expectSignedBy(arrived.get(endpoint.endpointId)!, [rotatedSecret!, endpoint.secret]);
  });
});
