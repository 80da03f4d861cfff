// Abuse limits over HTTP: the create and accept throttles (429 + retry-after, TTL self-heal, fail-open), the active cap (409), list pages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { toUuidN } from '../../lib/keys/index.ts';
import { issueInviteToken } from '../../lib/runtime/invites/invite-token.ts';
import { encodeCursor } from '../../lib/runtime/invites/list-cursor.ts';
import { THROTTLE_LIMITS, throttleWindow, throttle } from '../../lib/runtime/throttle/index.ts';
import { seedInvitesDirectly } from '../../local/stack/bulk-invites.ts';
import { newInvitee, startStack, type TestStack } from '../support/stack.ts';

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;
interface Page {
  invites: Array<{ inviteId: string; email: string; expiresAtUtc: string }>;
  nextCursor: string | null;
}

let stack: TestStack;
let capped: TestStack;
beforeAll(async () => {
  // The denylist behind its own proxy, so a fault on the main store leaves authentication working.
  stack = await startStack({ separateRevocationProxy: true });
  capped = await startStack({ env: { INVITE_MAX_ACTIVE_PER_ORG: '3' } });
});
afterAll(async () => {
  await stack?.close();
  await capped?.close();
});

function create(s: TestStack, org: Org, email: string) {
  return s.request('POST', `/orgs/${org.organizationId}/invites`, { token: org.adminToken, body: { email, roleCode: 'Viewer' } });
}

async function created(s: TestStack, org: Org, email: string) {
  const response = await create(s, org, email);
  expect(response.status).toBe(201);
  return (await response.json()) as { invite: { inviteId: string }; token: string };
}

async function list(s: TestStack, org: Org, query = ''): Promise<Page> {
  const response = await s.request('GET', `/orgs/${org.organizationId}/invites${query}`, { token: org.adminToken });
  expect(response.status).toBe(200);
  return (await response.json()) as Page;
}

async function auditRows(s: TestStack, organizationId: string, action: string): Promise<number> {
  const result = await s.db.query('SELECT count(*)::int AS n FROM audit_events WHERE organization_id = $1 AND action = $2', [
    organizationId,
    action,
  ]);
  return result.rows[0].n as number;
}

/** Both the counter of this window and of the next, so a request that crosses a window boundary is still counted. */
async function counterKeys(s: TestStack, target: Parameters<typeof throttleWindow>[1]): Promise<string[]> {
  const { windowSeconds } = THROTTLE_LIMITS[target.action];
  const later = { ...s.deps, clock: { now: () => Date.now() + windowSeconds * 1000 } };
  return [(await throttleWindow(s.deps, target)).key, (await throttleWindow(later, target)).key];
}

async function fillCounters(s: TestStack, keys: string[], count: number, windowSeconds: number): Promise<void> {
  for (const key of keys) await s.redis.set(key, String(count), 'EX', windowSeconds);
}

/** Waits out the last seconds of a throttle window, so a short burst of hits lands in one window. */
async function awayFromWindowEdge(windowSeconds: number): Promise<void> {
  const left = windowSeconds - (Math.floor(Date.now() / 1000) % windowSeconds);
  if (left < 5) await new Promise((resolve) => setTimeout(resolve, left * 1000 + 100));
}

async function expectRateLimited(response: Response, windowSeconds: number) {
  expect(response.status).toBe(429);
  expect(((await response.json()) as { error: { code: string } }).error.code).toBe('RATE_LIMITED');
  const retryAfter = Number(response.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
}

describe('create throttle (per organisation)', () => {
  const { limit, windowSeconds } = THROTTLE_LIMITS['invite-create'];

  it('answers 429 with retry-after once the window is full, and writes nothing', async () => {
    const org = await stack.seedOrganization();
    const target = { action: 'invite-create', scope: { kind: 'org', id: org.organizationId }, subject: org.organizationId } as const;
    await fillCounters(stack, await counterKeys(stack, target), limit, windowSeconds);
    await expectRateLimited(await create(stack, org, 'one.too.many@example.test'), windowSeconds);
    expect(await stack.redis.exists(stack.deps.keys.inviteActiveByOrg(org.organizationId))).toBe(0);
    expect(await auditRows(stack, org.organizationId, 'invite.created')).toBe(0);
    // Another organisation's bucket is its own.
    const other = await stack.seedOrganization();
    expect((await create(stack, other, 'elsewhere@example.test')).status).toBe(201);
  });

  it('counts each create in the same script, and restores a TTL the counter lost', async () => {
    const org = await stack.seedOrganization();
    const target = { action: 'invite-create', scope: { kind: 'org', id: org.organizationId }, subject: org.organizationId } as const;
    await awayFromWindowEdge(windowSeconds);
    const [key] = await counterKeys(stack, target);
    await created(stack, org, 'first@example.test');
    expect(await stack.redis.get(key!)).toBe('1');
    const ttl = await stack.redis.ttl(key!);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(windowSeconds);
    // A counter left without a TTL would never reset; the next hit puts one back.
    await stack.redis.persist(key!);
    expect(await stack.redis.ttl(key!)).toBe(-1);
    await created(stack, org, 'second@example.test');
    expect(await stack.redis.get(key!)).toBe('2');
    expect(await stack.redis.ttl(key!)).toBeGreaterThan(0);
  });
});

describe("accept throttle (per account, within the token's organisation)", () => {
  const { limit, windowSeconds } = THROTTLE_LIMITS['invite-accept'];
  /** A well-formed token of this organisation that names no invite: what a guesser sends. */
  const guess = (org: Org) => issueInviteToken(org.organizationId, uuidv7());

  it("counts failed attempts too, in the accept's own round trip: after the limit even the right token gets 429", async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const { token } = await created(stack, org, person.email);
    const bearer = await stack.token({ userId: person.userId, email: person.email });
    await awayFromWindowEdge(windowSeconds);
    for (let i = 0; i < limit; i += 1) {
      expect((await stack.request('POST', '/invites/accept', { token: bearer, body: { token: guess(org) } })).status).toBe(410);
    }
    stack.redisProxy.stats.reset();
    await expectRateLimited(await stack.request('POST', '/invites/accept', { token: bearer, body: { token } }), windowSeconds);
    // The accept script, and the API rate limiter's count beside the revocation check.
    expect(stack.redisProxy.stats.requests).toBe(2);
    expect((await list(stack, org)).invites).toHaveLength(1);
    // Another account is not held back by this one's count, and neither is this account in another organisation.
    const other = newInvitee();
    const otherBearer = await stack.token({ userId: other.userId, email: other.email });
    expect((await stack.request('POST', '/invites/accept', { token: otherBearer, body: { token: guess(org) } })).status).toBe(410);
    const elsewhere = await stack.seedOrganization();
    expect((await stack.request('POST', '/invites/accept', { token: bearer, body: { token: guess(elsewhere) } })).status).toBe(410);
  });

  it('restores the TTL of a counter found without one (TTL -1 self-heal)', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const target = { action: 'invite-accept', scope: { kind: 'org', id: org.organizationId }, subject: person.userId } as const;
    await awayFromWindowEdge(windowSeconds);
    const [key] = await counterKeys(stack, target);
    await stack.redis.set(key!, '3');
    expect(await stack.redis.ttl(key!)).toBe(-1);
    const bearer = await stack.token({ userId: person.userId, email: person.email });
    expect((await stack.request('POST', '/invites/accept', { token: bearer, body: { token: guess(org) } })).status).toBe(410);
    expect(await stack.redis.get(key!)).toBe('4');
    const ttl = await stack.redis.ttl(key!);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(windowSeconds);
  });

  it('the primitive itself: a refused Redis lets the hit through; a reachable one over its limit refuses', async () => {
    const userId = newInvitee().userId;
    const target = { action: 'invite-accept', scope: { kind: 'user', id: userId }, subject: userId, correlationId: 'test' } as const;
    stack.redisProxy.faults.set({ refuse: true });
    try {
      expect(await throttle.hit(stack.deps, target)).toEqual({ allowed: true });
    } finally {
      stack.redisProxy.faults.clear();
    }
    await fillCounters(stack, await counterKeys(stack, target), limit, windowSeconds);
    const refused = await throttle.hit(stack.deps, target);
    expect(refused.allowed).toBe(false);
    expect(refused.allowed === false && refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });
});

describe('active invites per organisation (INVITE_MAX_ACTIVE_PER_ORG=3)', () => {
  it('refuses the fourth with 409 INVITE_LIMIT_REACHED and writes nothing; a cancel makes room', async () => {
    const org = await capped.seedOrganization();
    const first = await created(capped, org, 'a@example.test');
    await created(capped, org, 'b@example.test');
    await created(capped, org, 'c@example.test');
    const refused = await create(capped, org, 'd@example.test');
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('INVITE_LIMIT_REACHED');
    expect(await capped.redis.zcard(capped.deps.keys.inviteActiveByOrg(org.organizationId))).toBe(3);
    expect(await auditRows(capped, org.organizationId, 'invite.created')).toBe(3);
    expect(
      (await capped.request('DELETE', `/orgs/${org.organizationId}/invites/${first.invite.inviteId}`, { token: org.adminToken })).status,
    ).toBe(204);
    await created(capped, org, 'd@example.test');
  });

  it('counts live invites only: expired index members do not hold a place', async () => {
    const org = await capped.seedOrganization();
    const past = Math.floor(Date.now() / 1000) - 60;
    for (let i = 0; i < 5; i += 1) {
      await capped.redis.zadd(capped.deps.keys.inviteActiveByOrg(org.organizationId), past, `${'e'.repeat(31)}${i}`);
    }
    await created(capped, org, 'a@example.test');
    await created(capped, org, 'b@example.test');
    await created(capped, org, 'c@example.test');
    expect((await create(capped, org, 'd@example.test')).status).toBe(409);
  });
});

describe('list pages', () => {
  async function walk(org: Org, limit: number, extra = ''): Promise<{ ids: string[]; pages: Page[] }> {
    const pages: Page[] = [];
    let cursor: string | null = null;
    do {
      const page = await list(stack, org, `?limit=${limit}${extra}${cursor === null ? '' : `&cursor=${cursor}`}`);
      pages.push(page);
      cursor = page.nextCursor;
    } while (cursor !== null && pages.length < 100);
    return { ids: pages.flatMap((p) => p.invites.map((i) => i.inviteId)), pages };
  }

  it('an empty organisation: no invites, no cursor', async () => {
    expect(await list(stack, await stack.seedOrganization())).toEqual({ invites: [], nextCursor: null });
  });

  it('walks in pages of `limit` with the same order as one big page; the last page has no cursor, even when it is full', async () => {
    const org = await stack.seedOrganization();
    for (let i = 0; i < 6; i += 1) await created(stack, org, `walk-${i}@example.test`);
    const whole = (await list(stack, org)).invites.map((i) => i.inviteId);
    expect(whole).toHaveLength(6);
    const byThree = await walk(org, 3);
    expect(byThree.pages.map((p) => p.invites.length)).toEqual([3, 3]);
    expect(byThree.pages.at(-1)?.nextCursor).toBeNull();
    expect(byThree.ids).toEqual(whole);
    const byOne = await walk(org, 1);
    expect(byOne.pages).toHaveLength(6);
    expect(byOne.ids).toEqual(whole);
  });

  it('defaults to 100 per page', async () => {
    const org = await stack.seedOrganization();
    await seedInvitesDirectly(stack.redis, stack.deps, { organizationId: org.organizationId, createdByUserId: org.adminId, count: 150 });
    const first = await list(stack, org);
    expect(first.invites).toHaveLength(100);
    expect(first.nextCursor).not.toBeNull();
    const second = await list(stack, org, `?cursor=${first.nextCursor}`);
    expect(second.invites).toHaveLength(50);
    expect(second.nextCursor).toBeNull();
  });

  it('continues after the invite its cursor names was cancelled or accepted meanwhile', async () => {
    const org = await stack.seedOrganization();
    for (let i = 0; i < 5; i += 1) await created(stack, org, `gone-${i}@example.test`);
    const whole = (await list(stack, org)).invites.map((i) => i.inviteId);
    const first = await list(stack, org, '?limit=2');
    const last = first.invites.at(-1)!.inviteId;
    expect((await stack.request('DELETE', `/orgs/${org.organizationId}/invites/${last}`, { token: org.adminToken })).status).toBe(204);
    const rest = await list(stack, org, `?limit=10&cursor=${first.nextCursor}`);
    expect(rest.invites.map((i) => i.inviteId)).toEqual(whole.slice(2));
    expect(rest.nextCursor).toBeNull();
    // The momentary re-insert used to find the cursor's place left nothing behind.
    expect(await stack.redis.zscore(stack.deps.keys.inviteActiveByOrg(org.organizationId), toUuidN(last))).toBeNull();
  });

  it('a cursor already in the past starts at the first live invite', async () => {
    const org = await stack.seedOrganization();
    for (let i = 0; i < 3; i += 1) await created(stack, org, `past-${i}@example.test`);
    const cursor = encodeCursor({ score: Math.floor(Date.now() / 1000) - 100, member: 'f'.repeat(32) });
    expect((await list(stack, org, `?cursor=${cursor}`)).invites).toHaveLength(3);
  });

  it('refuses with 400 a cursor naming a listed invite under another score (no list hands that out)', async () => {
    const org = await stack.seedOrganization();
    const { invite } = await created(stack, org, 'forged@example.test');
    const cursor = encodeCursor({ score: Math.floor(Date.now() / 1000) + 50_000, member: toUuidN(invite.inviteId) });
    const response = await stack.request('GET', `/orgs/${org.organizationId}/invites?cursor=${cursor}`, { token: org.adminToken });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('VALIDATION_FAILED');
  });

  it('pages the email filter the same way', async () => {
    const org = await stack.seedOrganization();
    for (let i = 0; i < 3; i += 1) await created(stack, org, 'same.person@example.test');
    await created(stack, org, 'someone.else@example.test');
    const { pages, ids } = await walk(org, 2, '&email=same.person@example.test');
    expect(pages.map((p) => p.invites.length)).toEqual([2, 1]);
    expect(new Set(ids).size).toBe(3);
    expect(pages.flatMap((p) => p.invites.map((i) => i.email))).toEqual(Array(3).fill('same.person@example.test'));
  });
});
