// Invitations delivered by email: the link from INVITE_LINK_BASE only (never Host or forwarding headers), the token in
// its fragment and nowhere else, and a failed or slow send answered as `delivery: "failed"` with the invite standing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutgoingMessage } from '../../lib/notify/notifier.ts';
import { newInvitee, startStack, type TestStack } from '../support/stack.ts';

const LINK_BASE = 'https://app.runstate.test/invites/accept';
type Mode = 'ok' | 'fail' | 'hang';
let mode: Mode = 'ok';
const sent: OutgoingMessage[] = [];
/** Every message handed to the notifier, sent or not: a failed send's token must leak no more than a sent one's. */
const attempted: OutgoingMessage[] = [];
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({
    env: { INVITE_LINK_BASE: LINK_BASE },
    deps: {
      notifier: {
        send: async (message) => {
          attempted.push(message);
          if (mode === 'fail') throw new Error('email API answered 503');
          if (mode === 'hang') return new Promise<void>(() => {});
          sent.push(message);
        },
      },
    },
  });
});
afterAll(async () => {
  mode = 'ok';
  await stack?.close();
});

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;

const create = (org: Org, email: string, extra: object = {}, headers: Record<string, string> = {}) =>
  stack.request('POST', `/orgs/${org.organizationId}/invites`, {
    token: org.adminToken,
    body: { email, roleCode: 'Accountant', ...extra },
    headers,
  });

function mailedTo(email: string): OutgoingMessage {
  const message = sent.filter((m) => m.to === email).at(-1);
  if (message === undefined) throw new Error(`no invitation mailed to ${email}`);
  return message;
}

function tokenIn(message: OutgoingMessage): string {
  const link = /(https:\S+)#token=(\S+)/.exec(message.text);
  expect(link?.[1]).toBe(LINK_BASE);
  return link![2]!;
}

async function accept(person: ReturnType<typeof newInvitee>, token: string) {
  const bearer = await stack.token({ userId: person.userId, email: person.email });
  return stack.request('POST', '/invites/accept', { token: bearer, body: { token } });
}

async function storedRecord(org: Org, inviteId: string) {
  const raw = await stack.redis.get(stack.deps.keys.inviteObject(org.organizationId, inviteId));
  return raw === null ? null : (JSON.parse(raw) as Record<string, unknown>);
}

describe('create with delivery', () => {
  it('"none" (the default) answers as before: the token in the answer, nothing mailed', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const response = await create(org, person.email);
    expect(response.status).toBe(201);
    const body = (await response.json()) as { invite: Record<string, unknown>; token: string };
    expect(body.token).toMatch(/^rsi_/);
    expect(body.invite.delivery).toBe('none');
    expect(sent.filter((m) => m.to === person.email)).toEqual([]);
    expect((await storedRecord(org, body.invite.inviteId as string))?.delivery).toBe('none');
  });

  it('"email" mails the link with the organisation, role and expiry, answers without the token, and the link accepts', async () => {
    const org = await stack.seedOrganization();
    await stack.db.query('UPDATE organizations SET display_name = $1 WHERE id = $2', ['Harbour Kitchens', org.organizationId]);
    const person = newInvitee();
    const response = await create(org, person.email, { delivery: 'email' });
    expect(response.status).toBe(201);
    const body = (await response.json()) as Record<string, unknown> & { invite: Record<string, string> };
    expect(Object.keys(body).sort()).toEqual(['delivery', 'invite']);
    expect(body.delivery).toBe('sent');
    expect(body.invite.delivery).toBe('email');
    const message = mailedTo(person.email);
    expect(message.kind).toBe('invite');
    expect(message.text).toContain('Harbour Kitchens');
    expect(message.text).toContain('Accountant');
    expect(message.text).toContain(body.invite.expiresAtUtc!);
    const token = tokenIn(message);
    expect(token).toMatch(/^rsi_/);
    expect((await storedRecord(org, body.invite.inviteId!))?.delivery).toBe('email');
    expect((await accept(person, token)).status).toBe(200);
  });

  it("falls back to the organisation's name without a display name", async () => {
    const org = await stack.seedOrganization();
    const name = (await stack.db.query<{ name: string }>('SELECT name FROM organizations WHERE id = $1', [org.organizationId])).rows[0]!
      .name;
    const person = newInvitee();
    expect((await create(org, person.email, { delivery: 'email' })).status).toBe(201);
    expect(mailedTo(person.email).text).toContain(name);
  });

  it('a forged Host or X-Forwarded-Host never shapes the link', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const response = await create(
      org,
      person.email,
      { delivery: 'email' },
      { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' },
    );
    expect(response.status).toBe(201);
    const message = mailedTo(person.email);
    expect(message.text).not.toContain('evil.example');
    tokenIn(message);
    // Nor the request's own URL, as a proxy that rewrites it (or an entry that builds it from Host) would hand it over.
    const other = newInvitee();
    const absolute = await stack.app.request(`http://evil.example:8443/orgs/${org.organizationId}/invites`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.adminToken}`, 'content-type': 'application/json', host: 'evil.example:8443' },
      body: JSON.stringify({ email: other.email, roleCode: 'Accountant', delivery: 'email' }),
    });
    expect(absolute.status).toBe(201);
    expect(mailedTo(other.email).text).not.toContain('evil.example');
    tokenIn(mailedTo(other.email));
  });

  it('the token is in the message only: not in the answer, Redis, PostgreSQL or the logs, a failed send included', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const failing = newInvitee();
    const answers: string[] = [];
    answers.push(await (await create(org, person.email, { delivery: 'email' })).text());
    mode = 'fail';
    try {
      answers.push(await (await create(org, failing.email, { delivery: 'email' })).text());
    } finally {
      mode = 'ok';
    }
    const tokens = [tokenIn(mailedTo(person.email)), tokenIn(attempted.filter((m) => m.to === failing.email).at(-1)!)];
    const parts: string[] = [...answers, ...stack.logs];
    for (const key of await stack.redis.keys('*')) {
      parts.push(key);
      const type = await stack.redis.type(key);
      if (type === 'string') parts.push((await stack.redis.get(key)) ?? '');
      if (type === 'zset') parts.push((await stack.redis.zrange(key, 0, -1)).join(' '));
      if (type === 'hash') parts.push(JSON.stringify(await stack.redis.hgetall(key)));
      if (type === 'set') parts.push((await stack.redis.smembers(key)).join(' '));
      if (type === 'list') parts.push((await stack.redis.lrange(key, 0, -1)).join(' '));
    }
    // Every table, every row.
    const tables = await stack.db.query<{ name: string }>(
      "SELECT quote_ident(table_name) AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
    );
    for (const { name } of tables.rows)
      parts.push(...(await stack.db.query(`SELECT t::text AS row FROM ${name} t`)).rows.map((r) => r.row));
    const haystack = parts.join('\n');
    // Positive control: the scan reads the invites' audit rows and the failure's log line.
    expect(haystack).toContain('invite.created');
    expect(haystack).toContain('invite_delivery_failed');
    for (const token of tokens) {
      expect(haystack).not.toContain(token);
      expect(haystack).not.toContain(encodeURIComponent(token));
      expect(haystack).not.toContain(token.slice(4));
    }
  });

  it('the email API down: 201 with delivery "failed", the invite created and listed', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    mode = 'fail';
    try {
      const response = await create(org, person.email, { delivery: 'email' });
      expect(response.status).toBe(201);
      const body = (await response.json()) as { invite: Record<string, string>; delivery: string; token?: string };
      expect(body.delivery).toBe('failed');
      expect(body.token).toBeUndefined();
      expect(await storedRecord(org, body.invite.inviteId!)).not.toBeNull();
      const audit = await stack.db.query('SELECT action FROM audit_events WHERE target_id = $1', [body.invite.inviteId]);
      expect(audit.rows).toEqual([{ action: 'invite.created' }]);
      expect(stack.logs.some((line) => line.includes('invite_delivery_failed'))).toBe(true);
    } finally {
      mode = 'ok';
    }
  });

  it('the email API slow: answered within the send deadline with delivery "failed"', { timeout: 20_000 }, async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    mode = 'hang';
    try {
      const started = Date.now();
      const response = await create(org, person.email, { delivery: 'email' });
      expect(Date.now() - started).toBeLessThan(8_000);
      expect(response.status).toBe(201);
      const body = (await response.json()) as { invite: Record<string, string>; delivery: string };
      expect(body.delivery).toBe('failed');
      expect(await storedRecord(org, body.invite.inviteId!)).not.toBeNull();
    } finally {
      mode = 'ok';
    }
  });
});

describe('without INVITE_LINK_BASE', () => {
  it('"email" is 503 NOT_CONFIGURED and creates nothing; "none" still works', async () => {
    const bare = await startStack();
    try {
      const org = await bare.seedOrganization();
      const person = newInvitee();
      const refused = await bare.request('POST', `/orgs/${org.organizationId}/invites`, {
        token: org.adminToken,
        body: { email: person.email, roleCode: 'Viewer', delivery: 'email' },
      });
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('NOT_CONFIGURED');
      expect(await bare.redis.zcard(bare.deps.keys.inviteActiveByOrg(org.organizationId))).toBe(0);
      const plain = await bare.request('POST', `/orgs/${org.organizationId}/invites`, {
        token: org.adminToken,
        body: { email: person.email, roleCode: 'Viewer' },
      });
      expect(plain.status).toBe(201);
    } finally {
      await bare.close();
    }
  });
});
