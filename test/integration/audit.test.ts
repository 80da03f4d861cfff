// The audit writer against real PostgreSQL: what a row holds, atomic batching, append-only enforcement, refused details.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { auditActor, countedAuditInsert } from '../../lib/pg/audit.ts';
import { AUDIT_ACTIONS, auditStatement, createDb, InvalidAuditEventError, writeAudit } from '../../lib/pg/index.ts';
import type { AuditEvent, Db } from '../../lib/pg/index.ts';
import { startNeonProxy } from '../../local/emulators/neon/index.ts';
import type { NeonProxy } from '../../local/emulators/neon/index.ts';

const databaseUrl = inject('databaseUrl');
let proxy: NeonProxy;
let db: Db;

beforeAll(async () => {
  proxy = await startNeonProxy({ databaseUrl });
  db = createDb({ databaseUrl, neonLocalProxyUrl: proxy.url });
});

afterAll(async () => {
  await proxy.close();
});

function event(overrides: Partial<AuditEvent> = {}): AuditEvent {
  return {
    action: 'invite.created',
    actorUserId: randomUUID(),
    organizationId: randomUUID(),
    locationId: null,
    targetId: randomUUID(),
    correlationId: `corr-${randomUUID()}`,
    details: { roleCode: 'Viewer', ttlSeconds: 10_800, resent: false, note: null },
    ...overrides,
  };
}

async function rowsFor(correlationId: string) {
  return db.query('SELECT * FROM audit_events WHERE correlation_id = $1', [correlationId]);
}

describe('writeAudit', () => {
  it('writes one row with the event, the given time and a UUIDv7 id', async () => {
    const audited = event({ locationId: randomUUID() });
    const now = new Date('2026-03-04T05:06:07.089Z');
    const { id } = await writeAudit(db, audited, now);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(await rowsFor(audited.correlationId)).toEqual([
      {
        id,
        occurred_at: now,
        actor_user_id: audited.actorUserId,
        actor_api_key_id: null,
        organization_id: audited.organizationId,
        location_id: audited.locationId,
        target_id: audited.targetId,
        action: 'invite.created',
        correlation_id: audited.correlationId,
        details: { roleCode: 'Viewer', ttlSeconds: 10_800, resent: false, note: null },
      },
    ]);
  });

  it("names an organisation's API key as the actor, with no user, and refuses a row naming both", async () => {
    const apiKeyId = randomUUID();
    const audited = event({ ...auditActor(randomUUID(), apiKeyId) });
    await writeAudit(db, audited, new Date());
    expect(await rowsFor(audited.correlationId)).toMatchObject([{ actor_user_id: null, actor_api_key_id: apiKeyId }]);
    const counted = event({ ...auditActor(randomUUID(), apiKeyId) });
    await db.transaction([countedAuditInsert(counted, new Date(), { detail: 'n', sql: '1' }, 1)]);
    expect(await rowsFor(counted.correlationId)).toMatchObject([{ actor_user_id: null, actor_api_key_id: apiKeyId, details: { n: 1 } }]);
    expect(() => auditStatement(event({ actorApiKeyId: apiKeyId }), new Date())).toThrow(InvalidAuditEventError);
  });

  it('stores {} when there are no details, and accepts every listed action', async () => {
    for (const action of AUDIT_ACTIONS) {
      const audited = event({ action, details: undefined, actorUserId: null });
      await writeAudit(db, audited, new Date());
      expect(await rowsFor(audited.correlationId)).toMatchObject([{ action, details: {}, actor_user_id: null }]);
    }
  });
});

describe('auditStatement in a batch', () => {
  it('commits the audit row together with the change it records', async () => {
    const audited = event();
    await db.transaction([
      { text: 'INSERT INTO organizations (id, name) VALUES ($1, $2)', params: [audited.organizationId, 'Audited Org'] },
      auditStatement(audited, new Date()),
    ]);
    expect(await rowsFor(audited.correlationId)).toHaveLength(1);
    expect(await db.query('SELECT name FROM organizations WHERE id = $1', [audited.organizationId])).toEqual([{ name: 'Audited Org' }]);
  });

  it('leaves no audit row when the change fails', async () => {
    const audited = event();
    await expect(
      db.transaction([
        auditStatement(audited, new Date()),
        { text: 'INSERT INTO organizations (id, name) VALUES ($1, NULL)', params: [audited.organizationId] },
      ]),
    ).rejects.toMatchObject({ code: '23502' });
    expect(await rowsFor(audited.correlationId)).toEqual([]);
  });
});

describe('append-only', () => {
  it('refuses UPDATE and DELETE of audit rows', async () => {
    const audited = event();
    const { id } = await writeAudit(db, audited, new Date());
    await expect(db.query("UPDATE audit_events SET action = 'session.revoked' WHERE id = $1", [id])).rejects.toMatchObject({
      code: '42501',
      message: expect.stringMatching(/append-only/),
    });
    await expect(db.query('DELETE FROM audit_events WHERE id = $1', [id])).rejects.toMatchObject({ code: '42501' });
    expect(await rowsFor(audited.correlationId)).toMatchObject([{ id, action: 'invite.created' }]);
  });

  it('refuses TRUNCATE', async () => {
    await writeAudit(db, event(), new Date());
    // Inside a rolled-back transaction, so even a missing trigger could not empty the shared table.
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query('BEGIN');
      await expect(client.query('TRUNCATE audit_events')).rejects.toMatchObject({ code: '42501' });
      await client.query('ROLLBACK');
      expect((await client.query('SELECT count(*)::int AS n FROM audit_events')).rows[0].n).toBeGreaterThan(0);
    } finally {
      await client.end();
    }
  });
});

describe('auditStatement validation', () => {
  const invalid: [string, Record<string, unknown>][] = [
    ['nested object detail', { details: { role: { code: 'Viewer' } } }],
    ['array detail', { details: { roles: ['Viewer'] } }],
    ['token-named detail', { details: { inviteToken: 'abc' } }],
    ['password-named detail', { details: { password: 'hunter2' } }],
    ['session id detail', { details: { sessionId: randomUUID() } }],
    ['long string detail', { details: { note: 'x'.repeat(257) } }],
    ['too many details', { details: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, i])) }],
    ['odd detail key', { details: { 'a.b': 1 } }],
    ['non-finite number', { details: { n: Number.POSITIVE_INFINITY } }],
    ['unknown action', { action: 'invite.deleted' }],
    ['non-UUID actor', { actorUserId: 'admin' }],
    ['empty correlation id', { correlationId: '' }],
    ['unknown field', { requestBody: '{}' }],
  ];

  it.each(invalid)('rejects %s', (_label, overrides) => {
    expect(() => auditStatement({ ...event(), ...overrides } as AuditEvent, new Date())).toThrow(InvalidAuditEventError);
  });

  it('writes nothing when the event is invalid', async () => {
    const audited = event({ details: { nested: { no: true } } as unknown as AuditEvent['details'] });
    await expect(writeAudit(db, audited, new Date())).rejects.toThrow(/invalid audit event/);
    expect(await rowsFor(audited.correlationId)).toEqual([]);
  });

  it('accepts flat safe scalars and renders one parameterised INSERT', () => {
    const statement = auditStatement(event({ details: { credentialVersion: 2, enabled: true, reason: null } }), new Date());
    expect(statement.text).toMatch(/^INSERT INTO audit_events \(/);
    expect(statement.params).toHaveLength(9);
    expect(JSON.parse(statement.params[8] as string)).toEqual({ credentialVersion: 2, enabled: true, reason: null });
  });
});
