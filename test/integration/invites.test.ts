// Invitations end to end over HTTP: TTL, indexes, listing, cancel and accept cleanup, against real Redis and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditKey, hashEmail, toUuidN } from '../../lib/keys/index.ts';
import { newInvitee, startStack, type TestStack } from '../support/stack.ts';
import { withoutLimiterKeys } from '../support/limiter-keys.ts';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack?.close());

async function createInvite(org: Awaited<ReturnType<TestStack['seedOrganization']>>, email: string, extra: object = {}) {
  const response = await stack.request('POST', `/orgs/${org.organizationId}/invites`, {
    token: org.adminToken,
    body: { email, roleCode: 'Accountant', ...extra },
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { invite: Record<string, string>; token: string };
}

function inviteKeys(organizationId: string, inviteId: string) {
  return { object: stack.deps.keys.inviteObject(organizationId, inviteId), byOrg: stack.deps.keys.inviteActiveByOrg(organizationId) };
}

async function emailIndexKey(organizationId: string, email: string) {
  return stack.deps.keys.inviteActiveByEmailHash(organizationId, await hashEmail(stack.config.indexHashKey, email));
}

describe('create', () => {
  it('stores the object for exactly 3 hours and indexes it by organisation and by email hash', async () => {
    const org = await stack.seedOrganization();
    const { invite, token } = await createInvite(org, 'New.Person@Example.test', { locationId: org.locationId });
    expect(token).toMatch(/^rsi_/);
    expect(invite).toMatchObject({
      organizationId: org.organizationId,
      locationId: org.locationId,
      email: 'new.person@example.test',
      roleCode: 'Accountant',
      createdByUserId: org.adminId,
    });
    const keys = inviteKeys(org.organizationId, invite.inviteId!);
    const pttl = await stack.redis.pttl(keys.object);
    expect(pttl).toBeGreaterThanOrEqual(10_799_000);
    expect(pttl).toBeLessThanOrEqual(10_800_000);
    const stored = JSON.parse((await stack.redis.get(keys.object))!) as Record<string, unknown>;
    const member = toUuidN(invite.inviteId!);
    expect(Number(await stack.redis.zscore(keys.byOrg, member))).toBe(stored.expiresAtUnixSeconds);
    const byEmail = await emailIndexKey(org.organizationId, 'new.person@example.test');
    expect(Number(await stack.redis.zscore(byEmail, member))).toBe(stored.expiresAtUnixSeconds);
    // Each index lives at least as long as its newest member.
    expect(await stack.redis.ttl(keys.byOrg)).toBeGreaterThanOrEqual(10_799);
    expect(await stack.redis.ttl(byEmail)).toBeGreaterThanOrEqual(10_799);
    expect(new Date(invite.expiresAtUtc!).getTime() - new Date(invite.createdAtUtc!).getTime()).toBe(10_800_000);
    // Only the token's hash is stored, never the token.
    expect(JSON.stringify(stored)).not.toContain(token);
    const audit = await stack.db.query(
      'SELECT action, actor_user_id, organization_id, location_id FROM audit_events WHERE target_id = $1',
      [invite.inviteId],
    );
    expect(audit.rows).toEqual([
      { action: 'invite.created', actor_user_id: org.adminId, organization_id: org.organizationId, location_id: org.locationId },
    ]);
  });
});

describe('list', () => {
  it('returns active invites soonest expiry first, filters by email, and prunes members whose object is gone', async () => {
    const org = await stack.seedOrganization();
    const first = await createInvite(org, 'a@example.test');
    const second = await createInvite(org, 'b@example.test');
    const third = await createInvite(org, 'a@example.test');
    // An index member whose object vanished (Redis eviction, flush) must be pruned, not listed.
    await stack.redis.del(stack.deps.keys.inviteObject(org.organizationId, second.invite.inviteId!));

    const response = await stack.request('GET', `/orgs/${org.organizationId}/invites`, { token: org.adminToken });
    expect(response.status).toBe(200);
    const { invites } = (await response.json()) as { invites: Array<Record<string, string>> };
    expect(invites.map((i) => i.inviteId)).toEqual([first.invite.inviteId, third.invite.inviteId]);
    expect(await stack.redis.zscore(stack.deps.keys.inviteActiveByOrg(org.organizationId), toUuidN(second.invite.inviteId!))).toBeNull();

    const filtered = await stack.request('GET', `/orgs/${org.organizationId}/invites?email=A%40Example.test`, { token: org.adminToken });
    const body = (await filtered.json()) as { invites: Array<Record<string, string>> };
    expect(body.invites.map((i) => i.inviteId)).toEqual([first.invite.inviteId, third.invite.inviteId]);
  });
});

describe('cancel', () => {
  it('removes the object and both index members, audits it once, and answers a repeat the same without a second row', async () => {
    const org = await stack.seedOrganization();
    const { invite, token } = await createInvite(org, 'cancel.me@example.test');
    const path = `/orgs/${org.organizationId}/invites/${invite.inviteId}`;
    expect((await stack.request('DELETE', path, { token: org.adminToken })).status).toBe(204);
    const member = toUuidN(invite.inviteId!);
    expect(await stack.redis.exists(stack.deps.keys.inviteObject(org.organizationId, invite.inviteId!))).toBe(0);
    expect(await stack.redis.zscore(stack.deps.keys.inviteActiveByOrg(org.organizationId), member)).toBeNull();
    expect(await stack.redis.zscore(await emailIndexKey(org.organizationId, 'cancel.me@example.test'), member)).toBeNull();
    // A repeat (the admin's retry after a lost reply) is answered the same while the receipt lives.
    expect((await stack.request('DELETE', path, { token: org.adminToken })).status).toBe(204);
    const audit = await stack.db.query('SELECT action FROM audit_events WHERE target_id = $1 ORDER BY occurred_at', [invite.inviteId]);
    expect(audit.rows.map((r) => r.action)).toEqual(['invite.created', 'invite.cancelled']);
    // A cancelled invite cannot be accepted.
    const invitee = await stack.token({ userId: newInvitee().userId, email: 'cancel.me@example.test' });
    expect((await stack.request('POST', '/invites/accept', { token: invitee, body: { token } })).status).toBe(410);
  });
});

describe('accept', () => {
  it('grants the role once, cleans up Redis, audits; a repeat by the same account gets the same 200, anyone else 410', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const { invite, token } = await createInvite(org, person.email, { locationId: org.locationId });
    const bearer = await stack.token({ userId: person.userId, email: person.email.toUpperCase() });
    const response = await stack.request('POST', '/invites/accept', { token: bearer, body: { token } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ organizationId: org.organizationId, locationId: org.locationId, roleCode: 'Accountant' });

    const member = toUuidN(invite.inviteId!);
    expect(await stack.redis.exists(stack.deps.keys.inviteObject(org.organizationId, invite.inviteId!))).toBe(0);
    expect(await stack.redis.zscore(stack.deps.keys.inviteActiveByOrg(org.organizationId), member)).toBeNull();
    expect(await stack.redis.zscore(await emailIndexKey(org.organizationId, person.email), member)).toBeNull();

    const roles = await stack.db.query('SELECT role_code, location_id FROM role_assignments WHERE user_id = $1', [person.userId]);
    expect(roles.rows).toEqual([{ role_code: 'Accountant', location_id: org.locationId }]);
    const user = await stack.db.query('SELECT email FROM users WHERE id = $1', [person.userId]);
    expect(user.rows).toEqual([{ email: person.email }]);

    const second = await stack.request('POST', '/invites/accept', { token: bearer, body: { token } });
    expect(second.status).toBe(200);
    expect(await second.json()).toEqual({ organizationId: org.organizationId, locationId: org.locationId, roleCode: 'Accountant' });
    const other = newInvitee();
    const otherBearer = await stack.token({ userId: other.userId, email: person.email });
    const stolen = await stack.request('POST', '/invites/accept', { token: otherBearer, body: { token } });
    expect(stolen.status).toBe(410);
    expect(await stolen.json()).toEqual({ error: { code: 'INVITE_INVALID', message: expect.any(String) } });
    expect((await stack.db.query('SELECT count(*)::int AS n FROM role_assignments WHERE user_id = $1', [person.userId])).rows[0].n).toBe(1);
    const audit = await stack.db.query("SELECT count(*)::int AS n FROM audit_events WHERE target_id = $1 AND action = 'invite.accepted'", [
      invite.inviteId,
    ]);
    expect(audit.rows[0].n).toBe(1);
  });

  it('refuses another email without consuming the invite, and gives one answer for unknown and forged tokens', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const { token } = await createInvite(org, person.email);
    const stranger = await stack.token({ userId: newInvitee().userId, email: 'someone.else@example.test' });
    expect((await stack.request('POST', '/invites/accept', { token: stranger, body: { token } })).status).toBe(403);
    // Only email_verified: true vouches for the email; false and a missing claim are both "no verified email".
    for (const emailVerified of [false, 'omit'] as const) {
      const unverified = await stack.token({ userId: person.userId, email: person.email, emailVerified });
      const refused = await stack.request('POST', '/invites/accept', { token: unverified, body: { token } });
      expect(refused.status, `email_verified: ${emailVerified}`).toBe(403);
    }

    const bearer = await stack.token({ userId: person.userId, email: person.email });
    const tampered = token.slice(0, -4) + (token.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    for (const candidate of [tampered, 'rsi_' + 'A'.repeat(86), 'not-a-token']) {
      const response = await stack.request('POST', '/invites/accept', { token: bearer, body: { token: candidate } });
      expect(response.status).toBe(410);
    }
    // The real recipient can still accept after all of that.
    expect((await stack.request('POST', '/invites/accept', { token: bearer, body: { token } })).status).toBe(200);
  });
});

describe('accept by an account whose email another user already holds', () => {
  it('answers 403, grants nothing, and keeps the invite for the right account', async () => {
    const org = await stack.seedOrganization();
    const holder = newInvitee();
    await stack.db.query('INSERT INTO users (id, email) VALUES ($1, $2)', [holder.userId, holder.email]);
    const { token } = await createInvite(org, holder.email);
    const impostor = await stack.token({ userId: newInvitee().userId, email: holder.email });
    const response = await stack.request('POST', '/invites/accept', { token: impostor, body: { token } });
    expect(response.status).toBe(403);
    const roles = await stack.db.query('SELECT count(*)::int AS n FROM role_assignments WHERE organization_id = $1 AND user_id <> $2', [
      org.organizationId,
      org.adminId,
    ]);
    expect(roles.rows[0].n).toBe(0);
    const rightful = await stack.token({ userId: holder.userId, email: holder.email });
    expect((await stack.request('POST', '/invites/accept', { token: rightful, body: { token } })).status).toBe(200);
  });
});

describe('expiry', () => {
  it('drops an expired invite from the list and fails its accept closed', async () => {
    const short = await startStack({ inviteTtlSeconds: 1 });
    try {
      const org = await short.seedOrganization();
      const person = newInvitee();
      const created = await short.request('POST', `/orgs/${org.organizationId}/invites`, {
        token: org.adminToken,
        body: { email: person.email, roleCode: 'Viewer' },
      });
      const { token } = (await created.json()) as { token: string };
      await new Promise((resolve) => setTimeout(resolve, 2_100));
      const list = await short.request('GET', `/orgs/${org.organizationId}/invites`, { token: org.adminToken });
      expect(((await list.json()) as { invites: unknown[] }).invites).toEqual([]);
      const bearer = await short.token({ userId: person.userId, email: person.email });
      expect((await short.request('POST', '/invites/accept', { token: bearer, body: { token } })).status).toBe(410);
      expect(await short.redis.zcard(short.deps.keys.inviteActiveByOrg(org.organizationId))).toBe(0);
    } finally {
      await short.close();
    }
  });
});

describe('keyspace', () => {
  it('every key the invite lifecycle leaves is in the registry and has a TTL', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const kept = await createInvite(org, 'kept@example.test', { locationId: org.locationId });
    const accepted = await createInvite(org, person.email);
    const cancelled = await createInvite(org, 'cancelled@example.test');
    await stack.request('DELETE', `/orgs/${org.organizationId}/invites/${cancelled.invite.inviteId}`, { token: org.adminToken });
    const bearer = await stack.token({ userId: person.userId, email: person.email });
    expect((await stack.request('POST', '/invites/accept', { token: bearer, body: { token: accepted.token } })).status).toBe(200);
    await stack.request('POST', '/auth/logout', { token: bearer });

    const keys = await stack.redis.keys(`${stack.deps.keys.prefix}:${stack.deps.keys.env}:*`);
    const orgKeys = withoutLimiterKeys(keys).filter((k) => k.includes(org.organizationId) && !k.includes(':throttle:'));
    // The organisation's create throttle counter and the invitee's accept counter stay for their window (audited below).
    expect(keys.filter((k) => k.includes(':throttle:counter:invite-create.') && k.includes(org.organizationId))).toHaveLength(1);
    expect(keys.filter((k) => k.includes(':throttle:counter:invite-accept.') && k.includes(org.organizationId))).toHaveLength(1);
    // The kept invite: its object, the org index, its email index and the registry listing it remain; of the other
    // two only their receipts (and the reconciler's list of them), which expire on their own.
    expect(orgKeys.sort()).toEqual(
      [
        stack.deps.keys.inviteObject(org.organizationId, kept.invite.inviteId!),
        stack.deps.keys.inviteActiveByOrg(org.organizationId),
        await emailIndexKey(org.organizationId, 'kept@example.test'),
        stack.deps.keys.inviteEmailIndexesByOrg(org.organizationId),
        stack.deps.keys.inviteReceipt(org.organizationId, accepted.invite.inviteId!),
        stack.deps.keys.inviteReceipt(org.organizationId, cancelled.invite.inviteId!),
        stack.deps.keys.inviteReceiptsByOrg(org.organizationId),
      ].sort(),
    );
    for (const key of keys) {
      const ttl = await stack.redis.ttl(key);
      // Other test files run beside this one: a key of theirs may expire or be deleted between KEYS and TTL.
      if (ttl === -2) continue;
      const audit = auditKey(key, ttl);
      expect(audit.findings, key).toEqual([]);
      expect(audit.entry, key).toBeDefined();
    }
  });
});
