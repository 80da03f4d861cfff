// Resending an invitation: a new token (the old one refused at once), the expiry restarted at the invite TTL, the
// message sent again, throttled per invite and in the organisation's create count, audited `invite.resent`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutgoingMessage } from '../../lib/notify/notifier.ts';
import { THROTTLE_LIMITS } from '../../lib/runtime/throttle/limits.ts';
import { throttleWindow } from '../../lib/runtime/throttle/index.ts';
import { hashEmail, toUuidN } from '../../lib/keys/index.ts';
import { newInvitee, startStack, type TestStack } from '../support/stack.ts';

const LINK_BASE = 'https://app.runstate.test/invites/accept';
let failing = false;
let hanging = false;
const sent: OutgoingMessage[] = [];
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({
    env: { INVITE_LINK_BASE: LINK_BASE },
    deps: {
      notifier: {
        send: async (message) => {
          if (failing) throw new Error('email API answered 503');
          if (hanging) return new Promise<void>(() => {});
          sent.push(message);
        },
      },
    },
  });
});
afterAll(async () => stack?.close());

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;
type Person = ReturnType<typeof newInvitee>;

async function createEmailed(org: Org, person: Person) {
  const response = await stack.request('POST', `/orgs/${org.organizationId}/invites`, {
    token: org.adminToken,
    body: { email: person.email, roleCode: 'Viewer', delivery: 'email' },
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { invite: Record<string, string>; delivery: string };
}

const resend = (org: Org, inviteId: string, headers: Record<string, string> = {}) =>
  stack.request('POST', `/orgs/${org.organizationId}/invites/${inviteId}/resend`, { token: org.adminToken, headers });

function lastToken(email: string): string {
  const message = sent.filter((m) => m.to === email).at(-1);
  const link = message === undefined ? null : /(https:\S+)#token=(\S+)/.exec(message.text);
  expect(link?.[1]).toBe(LINK_BASE);
  return link![2]!;
}

async function accept(person: Person, token: string) {
  const bearer = await stack.token({ userId: person.userId, email: person.email });
  return stack.request('POST', '/invites/accept', { token: bearer, body: { token } });
}

describe('resend', () => {
  it('issues a new token, refuses the old one at once, restarts the TTL exactly, audits invite.resent', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const { invite } = await createEmailed(org, person);
    const oldToken = lastToken(person.email);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const response = await resend(org, invite.inviteId!, { host: 'evil.example', 'x-forwarded-host': 'evil.example' });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { invite: Record<string, string>; delivery: string; token?: string };
    expect(Object.keys(body).sort()).toEqual(['delivery', 'invite']);
    expect(body.delivery).toBe('sent');
    expect(body.token).toBeUndefined();
    expect(body.invite.delivery).toBe('email');
    expect(new Date(body.invite.expiresAtUtc!).getTime()).toBeGreaterThan(new Date(invite.expiresAtUtc!).getTime());
    const newToken = lastToken(person.email);
    expect(newToken).not.toBe(oldToken);
    expect(sent.filter((m) => m.to === person.email).at(-1)!.text).not.toContain('evil.example');

    const objectKey = stack.deps.keys.inviteObject(org.organizationId, invite.inviteId!);
    const pttl = await stack.redis.pttl(objectKey);
    expect(pttl).toBeGreaterThanOrEqual(10_799_000);
    expect(pttl).toBeLessThanOrEqual(10_800_000);
    const stored = JSON.parse((await stack.redis.get(objectKey))!) as Record<string, unknown>;
    const member = toUuidN(invite.inviteId!);
    const byOrg = stack.deps.keys.inviteActiveByOrg(org.organizationId);
    const byEmail = stack.deps.keys.inviteActiveByEmailHash(org.organizationId, await hashEmail(stack.config.indexHashKey, person.email));
    expect(Number(await stack.redis.zscore(byOrg, member))).toBe(stored.expiresAtUnixSeconds);
    expect(Number(await stack.redis.zscore(byEmail, member))).toBe(stored.expiresAtUnixSeconds);
    expect(await stack.redis.ttl(byOrg)).toBeGreaterThanOrEqual(10_799);
    expect(await stack.redis.ttl(byEmail)).toBeGreaterThanOrEqual(10_799);
    expect(JSON.stringify(stored)).not.toContain(newToken);

    const audit = await stack.db.query<{ action: string; actor_user_id: string; details: unknown }>(
      'SELECT action, actor_user_id, details FROM audit_events WHERE target_id = $1 ORDER BY occurred_at, action',
      [invite.inviteId],
    );
    expect(audit.rows.map((r) => r.action).sort()).toEqual(['invite.created', 'invite.resent']);
    expect(audit.rows.find((r) => r.action === 'invite.resent')!.actor_user_id).toBe(org.adminId);
    expect(JSON.stringify(audit.rows)).not.toContain(newToken);
    expect(stack.logs.join('\n')).not.toContain(newToken);

    expect((await accept(person, oldToken)).status).toBe(410);
    expect((await accept(person, newToken)).status).toBe(200);
    // Accepted: nothing left to resend.
    expect((await resend(org, invite.inviteId!)).status).toBe(404);
  });

  it('turns a "none" invite into an email one; unknown and cancelled invites are 404', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const created = await stack.request('POST', `/orgs/${org.organizationId}/invites`, {
      token: org.adminToken,
      body: { email: person.email, roleCode: 'Viewer' },
    });
    const { invite, token } = (await created.json()) as { invite: Record<string, string>; token: string };
    const response = await resend(org, invite.inviteId!);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { invite: { delivery: string } }).invite.delivery).toBe('email');
    expect((await accept(person, token)).status).toBe(410);

    expect((await resend(org, '01900000-0000-7000-8000-000000000000')).status).toBe(404);
    const other = await createEmailed(org, newInvitee());
    expect(
      (await stack.request('DELETE', `/orgs/${org.organizationId}/invites/${other.invite.inviteId}`, { token: org.adminToken })).status,
    ).toBe(204);
    expect((await resend(org, other.invite.inviteId!)).status).toBe(404);
  });

  it('the email API down: the invite is created with delivery "failed", and resend delivers it once it is back', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    failing = true;
    let inviteId: string;
    try {
      const created = await createEmailed(org, person);
      expect(created.delivery).toBe('failed');
      inviteId = created.invite.inviteId!;
      const failed = await resend(org, inviteId);
      expect(failed.status).toBe(200);
      expect(((await failed.json()) as { delivery: string }).delivery).toBe('failed');
    } finally {
      failing = false;
    }
    const resent = await resend(org, inviteId);
    expect(((await resent.json()) as { delivery: string }).delivery).toBe('sent');
    expect((await accept(person, lastToken(person.email))).status).toBe(200);
  });

  it(
    'the email API slow during a resend: answered within the send deadline as "failed", the new token in force',
    { timeout: 20_000 },
    async () => {
      const org = await stack.seedOrganization();
      const person = newInvitee();
      const { invite } = await createEmailed(org, person);
      const oldToken = lastToken(person.email);
      hanging = true;
      try {
        const started = Date.now();
        const response = await resend(org, invite.inviteId!);
        expect(Date.now() - started).toBeLessThan(8_000);
        expect(response.status).toBe(200);
        expect(((await response.json()) as { delivery: string }).delivery).toBe('failed');
      } finally {
        hanging = false;
      }
      expect((await accept(person, oldToken)).status).toBe(410);
      expect((await resend(org, invite.inviteId!)).status).toBe(200);
      expect((await accept(person, lastToken(person.email))).status).toBe(200);
    },
  );

  it('a resend racing an accept of the old token: exactly one wins', async () => {
    for (let round = 0; round < 5; round++) {
      const org = await stack.seedOrganization();
      const person = newInvitee();
      const { invite } = await createEmailed(org, person);
      const oldToken = lastToken(person.email);
      const [resent, accepted] = await Promise.all([resend(org, invite.inviteId!), accept(person, oldToken)]);
      const outcome = [resent.status, accepted.status];
      expect([
        [404, 200],
        [200, 410],
      ]).toContainEqual(outcome);
    }
  });

  it('is throttled per invite', async () => {
    const org = await stack.seedOrganization();
    const { invite } = await createEmailed(org, newInvitee());
    const { limit } = THROTTLE_LIMITS['invite-resend'];
    for (let i = 0; i < limit; i++) expect((await resend(org, invite.inviteId!)).status).toBe(200);
    const limited = await resend(org, invite.inviteId!);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another invite of the same organisation is not limited by it.
    const other = await createEmailed(org, newInvitee());
    expect((await resend(org, other.invite.inviteId!)).status).toBe(200);
  });

  it("counts in the organisation's create throttle: each resend is a hit there, and a full window refuses it unchanged", async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const { invite } = await createEmailed(org, person);
    const token = lastToken(person.email);
    const { limit, windowSeconds } = THROTTLE_LIMITS['invite-create'];
    const target = { action: 'invite-create', scope: { kind: 'org', id: org.organizationId }, subject: org.organizationId } as const;
    // Away from the window's edge, so the create and the resend land in the same counter.
    const left = windowSeconds - (Math.floor(Date.now() / 1000) % windowSeconds);
    if (left < 5) await new Promise((resolve) => setTimeout(resolve, left * 1000 + 100));
    const { key } = await throttleWindow(stack.deps, target);
    const before = Number(await stack.redis.get(key));
    expect((await resend(org, invite.inviteId!)).status).toBe(200);
    expect(Number(await stack.redis.get(key))).toBe(before + 1);

    // Creates used the window up (this counter and the next one's): the resend is refused and changes nothing.
    const next = await throttleWindow({ ...stack.deps, clock: { now: () => Date.now() + windowSeconds * 1000 } }, target);
    for (const counter of [key, next.key]) await stack.redis.set(counter, String(limit), 'EX', windowSeconds);
    const objectKey = stack.deps.keys.inviteObject(org.organizationId, invite.inviteId!);
    const stored = await stack.redis.get(objectKey);
    const mailed = sent.length;
    const limited = await resend(org, invite.inviteId!);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await stack.redis.get(objectKey)).toBe(stored);
    expect(sent.length).toBe(mailed);
    const audit = await stack.db.query("SELECT count(*)::int AS n FROM audit_events WHERE target_id = $1 AND action = 'invite.resent'", [
      invite.inviteId,
    ]);
    expect(audit.rows[0].n).toBe(1);
    // The token the first resend mailed still works; the one before it does not.
    expect((await accept(person, token)).status).toBe(410);
    expect((await accept(person, lastToken(person.email))).status).toBe(200);
  });

  it('PostgreSQL refusing the audit after the swap: 503, nothing mailed, the old token refused; a repeat resends once', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const { invite } = await createEmailed(org, person);
    const oldToken = lastToken(person.email);
    const mailed = sent.length;
    await stack.db.query(`CREATE OR REPLACE FUNCTION test_refuse_resent() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.action = 'invite.resent' AND NEW.target_id = '${invite.inviteId}' THEN RAISE EXCEPTION 'refused by test'; END IF;
      RETURN NEW; END $$`);
    await stack.db.query(
      'CREATE TRIGGER test_refuse_resent BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION test_refuse_resent()',
    );
    try {
      expect((await resend(org, invite.inviteId!)).status).toBeGreaterThanOrEqual(500);
    } finally {
      await stack.db.query('DROP TRIGGER test_refuse_resent ON audit_events');
      await stack.db.query('DROP FUNCTION test_refuse_resent()');
    }
    // docs/design/failure-semantics.md: the swap stands, so the old token is refused, and no message carries the new one.
    expect(sent.length).toBe(mailed);
    expect((await accept(person, oldToken)).status).toBe(410);
    const again = await resend(org, invite.inviteId!);
    expect(again.status).toBe(200);
    expect(((await again.json()) as { delivery: string }).delivery).toBe('sent');
    const audit = await stack.db.query("SELECT count(*)::int AS n FROM audit_events WHERE target_id = $1 AND action = 'invite.resent'", [
      invite.inviteId,
    ]);
    expect(audit.rows[0].n).toBe(1);
    expect((await accept(person, lastToken(person.email))).status).toBe(200);
  });
});
