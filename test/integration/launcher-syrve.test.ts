// npm start's Syrve demo in-process: the demo connection's seed on re-runs, rotations and replaced keys; the fake's account
// route; the fake's port; and the banner's Syrve lines.
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SecretKey } from '../../lib/config/secrets-keys.ts';
import { openSecret, sealSecret } from '../../lib/crypto/index.ts';
import { passwordBinding } from '../../lib/runtime/syrve/connection.ts';
import { startFakeSyrve } from '../../local/fakes/index.ts';
import { readyBanner, type BannerFacts } from '../../local/launcher/banner.ts';
import { startDemoUpstream } from '../../local/launcher/demo-upstream.ts';
import { DEMO, seedDemo } from '../../local/launcher/seed.ts';
import { DEMO_SYRVE, demoConnectionPort, seedDemoConnection } from '../../local/launcher/seed-syrve.ts';
import { createScratchDatabase, DEFAULT_DATABASE_URL, type ScratchDatabase } from '../../local/processes/scratch-database.ts';
import { createTeardown } from '../../local/stack/teardown.ts';

const newKey = (kid: string): SecretKey => ({ kid, key: new Uint8Array(randomBytes(32)) });
// Canaries: random per run.
const demoPassword = `demo-pw-${randomBytes(9).toString('base64url')}`;
const rotatedPassword = `rotated-pw-${randomBytes(9).toString('base64url')}`;
const ref = { organizationId: DEMO.organizationId, connectionId: DEMO_SYRVE.connectionId };

let scratch: ScratchDatabase;
let db: pg.Client;

beforeAll(async () => {
  // A database of its own: the demo connection has a fixed id, which launcher.test.ts's npm start seeds in the shared one.
  scratch = await createScratchDatabase(process.env.TEST_DATABASE_ADMIN_URL ?? DEFAULT_DATABASE_URL, 'test');
  db = new pg.Client({ connectionString: scratch.url });
  await db.connect();
  await seedDemo(db, 'jwt-secret-for-this-test-only-0123456789');
});

afterAll(async () => {
  await db?.end();
  await scratch?.drop();
});

interface Row {
  base_url: string;
  login: string;
  credential_version: number;
  password_ciphertext: string;
  password_key_id: string;
  updated_at: Date;
}

async function row(): Promise<Row> {
  const { rows } = await db.query<Row>(
    'SELECT base_url, login, credential_version, password_ciphertext, password_key_id, updated_at FROM syrve_connections WHERE id = $1',
    [DEMO_SYRVE.connectionId],
  );
  return rows[0] as Row;
}

function opened(keys: SecretKey[], stored: Row): Promise<string> {
  return openSecret(
    keys,
    { keyId: stored.password_key_id, ciphertext: stored.password_ciphertext },
    passwordBinding({ ...ref, credentialVersion: stored.credential_version }),
  );
}

/** What the fake was told, in order. */
function recorder(): { accounts: Array<[string, string]>; setAccount(login: string, password: string): void } {
  const accounts: Array<[string, string]> = [];
  return { accounts, setAccount: (login, password) => void accounts.push([login, password]) };
}

describe('the demo connection seed', () => {
  // One story, in order: each step starts from the row the previous one left.
  const keys = [newKey('dev')];

  it('creates the row once with the fixed id, the password sealed to it, and tells the fake', async () => {
    expect(await demoConnectionPort(db)).toBeUndefined();
    const fake = recorder();
    const seeded = await seedDemoConnection(db, {
      baseUrl: 'http://127.0.0.1:40001',
      secretsKeys: keys,
      password: demoPassword,
      upstream: fake,
    });
    expect(seeded).toEqual({
      connectionId: DEMO_SYRVE.connectionId,
      baseUrl: 'http://127.0.0.1:40001',
      login: 'demo',
      credentialVersion: 1,
      enabled: true,
      created: true,
      moved: false,
      resealed: false,
    });
    expect(fake.accounts).toEqual([['demo', demoPassword]]);
    const stored = await row();
    expect(await opened(keys, stored)).toBe(demoPassword);
    expect(JSON.stringify(stored)).not.toContain(demoPassword);
    expect(await demoConnectionPort(db)).toBe(40001);
    // The seed writes no audit rows for its fixtures, this one included.
    const audit = await db.query('SELECT 1 FROM audit_events WHERE target_id = $1', [DEMO_SYRVE.connectionId]);
    expect(audit.rows).toEqual([]);
  });

  it('keeps the row as it is on a re-run, and moves only the base URL when the fake has a new port', async () => {
    const before = await row();
    const fake = recorder();
    const again = await seedDemoConnection(db, {
      baseUrl: 'http://127.0.0.1:40001',
      secretsKeys: keys,
      password: 'ignored',
      upstream: fake,
    });
    expect(again).toMatchObject({ created: false, moved: false, resealed: false, credentialVersion: 1 });
    expect(await row()).toEqual(before);
    expect(fake.accounts).toEqual([['demo', demoPassword]]);

    const moved = await seedDemoConnection(db, {
      baseUrl: 'http://127.0.0.1:40002',
      secretsKeys: keys,
      password: 'ignored',
      upstream: fake,
    });
    expect(moved).toMatchObject({ created: false, moved: true, resealed: false, credentialVersion: 1 });
    const after = await row();
    expect(after).toMatchObject({
      base_url: 'http://127.0.0.1:40002',
      password_ciphertext: before.password_ciphertext,
      credential_version: 1,
    });
    expect(await demoConnectionPort(db)).toBe(40002);
  });

  it('leaves rotated credentials alone and gives the fake the rotated login and password', async () => {
    // As the rotation webhook leaves it: a new login, version 2, the new password sealed to version 2.
    const sealed = await sealSecret(keys, rotatedPassword, passwordBinding({ ...ref, credentialVersion: 2 }));
    await db.query(
      `UPDATE syrve_connections SET login = 'ops', credential_version = 2, password_ciphertext = $2, password_key_id = $3,
              credentials_rotated_at = now() WHERE id = $1`,
      [DEMO_SYRVE.connectionId, sealed.ciphertext, sealed.keyId],
    );
    const before = await row();
    const fake = recorder();
    const seeded = await seedDemoConnection(db, {
      baseUrl: 'http://127.0.0.1:40002',
      secretsKeys: keys,
      password: demoPassword,
      upstream: fake,
    });
    expect(seeded).toMatchObject({ login: 'ops', credentialVersion: 2, created: false, moved: false, resealed: false });
    expect(fake.accounts).toEqual([['ops', rotatedPassword]]);
    expect(await row()).toEqual(before);
  });

  it('seals SYRVE_DEMO_PASSWORD again, as the next version, when the stored password does not open with these keys', async () => {
    // dev-secrets.json deleted, or another data folder's launcher on the same database: a new key under the same kid.
    const otherKeys = [newKey('dev')];
    const fake = recorder();
    const seeded = await seedDemoConnection(db, {
      baseUrl: 'http://127.0.0.1:40002',
      secretsKeys: otherKeys,
      password: demoPassword,
      upstream: fake,
    });
    expect(seeded).toMatchObject({ login: 'demo', credentialVersion: 3, created: false, moved: false, resealed: true });
    expect(fake.accounts).toEqual([['demo', demoPassword]]);
    const stored = await row();
    expect(stored).toMatchObject({ login: 'demo', credential_version: 3 });
    expect(await opened(otherKeys, stored)).toBe(demoPassword);
  });

  it('reads no port from a base URL that is not the loopback fake', async () => {
    await db.query(`UPDATE syrve_connections SET base_url = 'https://rms.example.com:8443' WHERE id = $1`, [DEMO_SYRVE.connectionId]);
    expect(await demoConnectionPort(db)).toBeUndefined();
  });
});

describe("the fake's account route", () => {
  const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');
  const put = (url: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${url}/_fake/accounts/demo`, { method: 'PUT', body, headers });
  const login = (url: string, password: string) => fetch(`${url}/resto/api/auth?login=demo&pass=${sha1(password)}`).then((r) => r.status);

  it('sets a password when turned on, refuses browsers, and does not exist otherwise', async () => {
    const fake = await startFakeSyrve({ accountsRoute: true, accounts: { demo: demoPassword } });
    const plain = await startFakeSyrve({ accounts: { demo: demoPassword } });
    try {
      // A page (or a rebound DNS name) always sends Origin on a PUT: refused, and nothing changes.
      expect((await put(fake.url, rotatedPassword, { origin: 'http://evil.example' })).status).toBe(403);
      expect(await login(fake.url, rotatedPassword)).toBe(401);
      expect((await put(fake.url, '')).status).toBe(400);
      expect((await fetch(`${fake.url}/_fake/accounts/demo`)).status).toBe(405);

      expect((await put(fake.url, rotatedPassword)).status).toBe(204);
      expect(await login(fake.url, rotatedPassword)).toBe(200);
      expect(await login(fake.url, demoPassword)).toBe(401);

      expect((await put(plain.url, rotatedPassword)).status).toBe(405);
      expect(await login(plain.url, demoPassword)).toBe(200);
    } finally {
      await fake.close();
      await plain.close();
    }
  });
});

describe("the demo upstream's port", () => {
  it('takes the stored port when free, another when it is taken or is the app port, and registers its stop', async () => {
    const stack = createTeardown();
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const taken = (holder.address() as { port: number }).port;
    try {
      const fallback = await startDemoUpstream(taken, 0, stack);
      expect(new URL(fallback.url).port).not.toBe(String(taken));
      await new Promise<void>((resolve) => holder.close(() => resolve()));

      const again = await startDemoUpstream(taken, 0, stack);
      expect(again.url).toBe(`http://127.0.0.1:${taken}`);
      // The app's own port is never the fake's, even when the connection stored it.
      const avoided = await startDemoUpstream(taken + 1, taken + 1, stack);
      expect(avoided.url).not.toBe(`http://127.0.0.1:${taken + 1}`);
      expect(stack.names()).toEqual(['fake Syrve upstream', 'fake Syrve upstream', 'fake Syrve upstream']);
    } finally {
      holder.close();
      expect(await stack.run()).toBe(true);
    }
  });
});

describe("the banner's Syrve lines", () => {
  const facts = (syrve: Partial<BannerFacts['syrve']>): BannerFacts => ({
    baseUrl: 'http://127.0.0.1:8787',
    seed: {
      organizationId: DEMO.organizationId,
      locationId: DEMO.locationId,
      admin: { userId: 'u', email: DEMO.adminEmail, token: 't' },
      tenant: { slug: 'demo', domain: 'demo.runstate.test' },
    },
    invitee: { userId: 'n', email: DEMO.inviteeEmail, token: 'n' },
    webhookReceiverUrl: 'http://127.0.0.1:40002',
    syrve: { connectionId: DEMO_SYRVE.connectionId, upstreamUrl: 'http://127.0.0.1:40001', enabled: true, secretFromEnv: false, ...syrve },
    organizationName: DEMO.organizationName,
    locationName: DEMO.locationName,
    secretsFile: '.data/dev-secrets.json',
    dataDir: '.data',
    mailboxDir: '/tmp/mailbox',
    walkthroughFile: '.data/walkthrough.txt',
    services: [['HTTP', 'x']],
    stoppers: ['HTTP server'],
    notes: [],
  });

  it('names a chosen data folder to the webhook command as one shell word, and says where an environment secret must be', () => {
    const plain = readyBanner(facts({}));
    expect(plain).toContain(`CONNECTION=${DEMO_SYRVE.connectionId}\nSYRVE_FAKE=http://127.0.0.1:40001\n`);
    expect(plain).toMatch(/^printf %s "\$NEW_PW" \| npm run -s webhook -- rotate --url "\$BASE" .* --password-stdin$/m);
    expect(plain).toContain('its secret stays in .data/dev-secrets.json');
    expect(plain).not.toContain('/enable');

    const chosen = readyBanner(facts({ dataDir: "/tmp/it's here", secretFromEnv: true, enabled: false }));
    expect(chosen).toContain(`| RUNSTATE_DATA_DIR='/tmp/it'\\''s here' npm run -s webhook -- rotate`);
    expect(chosen).toContain('WEBHOOK_SECRET from the environment');
    expect(chosen).toMatch(/-X POST "\$BASE\/orgs\/\$ORG\/syrve\/connections\/\$CONNECTION\/enable"/);
  });
});
