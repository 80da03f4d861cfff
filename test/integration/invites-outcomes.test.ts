// Invites never lie: role conflicts are explicit, lost replies finish exactly once, nothing finished comes back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { invites } from '../../lib/runtime/invites/index.ts';
import { LIB_SCRIPTS } from '../support/lib-scripts.ts';
import { newInvitee, startStack, type TestStack } from '../support/stack.ts';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({ separateRevocationProxy: true });
  // A warm script cache, as in production: a cold EVALSHA that misses its deadline never sends its EVAL at all.
  for (const script of LIB_SCRIPTS) await stack.redis.script('LOAD', script.source);
});
afterAll(async () => stack?.close());

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;

async function create(org: Org, email: string, roleCode = 'Viewer', locationId?: string) {
  const response = await stack.request('POST', `/orgs/${org.organizationId}/invites`, {
    token: org.adminToken,
    body: { email, roleCode, ...(locationId !== undefined ? { locationId } : {}) },
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { invite: { inviteId: string }; token: string };
}

const accept = (bearer: string, token: string) => stack.request('POST', '/invites/accept', { token: bearer, body: { token } });
const cancel = (org: Org, inviteId: string) =>
  stack.request('DELETE', `/orgs/${org.organizationId}/invites/${inviteId}`, { token: org.adminToken });

async function state(org: Org, inviteId: string, userId: string) {
  const q = async (sql: string, params: unknown[]) => (await stack.db.query(sql, params)).rows;
  return {
    outcome: (await q('SELECT outcome FROM invite_outcomes WHERE invite_id = $1', [inviteId])).map((r) => r.outcome as string),
    audits: (
      await q("SELECT action FROM audit_events WHERE target_id = $1 AND action <> 'invite.created' ORDER BY occurred_at", [inviteId])
    ).map((r) => r.action as string),
    roles: (
      await q('SELECT role_code FROM role_assignments WHERE user_id = $1 AND organization_id = $2', [userId, org.organizationId])
    ).map((r) => r.role_code as string),
    live: (await stack.redis.exists(stack.deps.keys.inviteObject(org.organizationId, inviteId))) === 1,
  };
}

const reconcile = (org: Org) => invites.reconcile(stack.deps, { organizationId: org.organizationId, graceSeconds: 0 });

async function grant(org: Org, userId: string, email: string, roleCode: string) {
  await stack.db.query('INSERT INTO users (id, email) VALUES ($1, $2)', [userId, email]);
  await stack.db.query(
    'INSERT INTO role_assignments (id, user_id, organization_id, location_id, role_code) VALUES ($1, $2, $3, NULL, $4)',
    [uuidv7(), userId, org.organizationId, roleCode],
  );
}

describe('role conflicts', () => {
  it('another role at that scope answers 409 ROLE_CONFLICT naming it, and the invite stays active and unaudited', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    await grant(org, person.userId, person.email, 'Accountant');
    const { invite, token } = await create(org, person.email, 'Viewer');
    const response = await accept(await stack.token({ userId: person.userId, email: person.email }), token);
    expect(response.status).toBe(409);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('ROLE_CONFLICT');
    expect(body.error.message).toContain('Accountant');
    expect(await state(org, invite.inviteId, person.userId)).toEqual({ outcome: [], audits: [], roles: ['Accountant'], live: true });
    // Still listed, and the reconciler has nothing to finish for it.
    const list = await stack.request('GET', `/orgs/${org.organizationId}/invites`, { token: org.adminToken });
    expect(((await list.json()) as { invites: Array<{ inviteId: string }> }).invites.map((i) => i.inviteId)).toEqual([invite.inviteId]);
    expect((await reconcile(org)).finished).toBe(0);
  });

  it('the same role already held answers 200 and grants nothing new', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    await grant(org, person.userId, person.email, 'Viewer');
    const { invite, token } = await create(org, person.email, 'Viewer');
    const response = await accept(await stack.token({ userId: person.userId, email: person.email }), token);
    expect(response.status).toBe(200);
    expect(await state(org, invite.inviteId, person.userId)).toEqual({
      outcome: ['accepted'],
      audits: ['invite.accepted'],
      roles: ['Viewer'],
      live: false,
    });
  });
});

describe('a reply lost to a Redis deadline (the script lands after it)', () => {
  it("the same account's repeat finishes the accept: 200, one grant, one audit row", async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const { invite, token } = await create(org, person.email);
    const bearer = await stack.token({ userId: person.userId, email: person.email });
    stack.redisProxy.faults.set({ delayMs: 2_600 });
    try {
      expect((await accept(bearer, token)).status).toBe(503);
    } finally {
      stack.redisProxy.faults.clear();
    }
    await new Promise((resolve) => setTimeout(resolve, 800));
    // The late script consumed the invite: nothing granted yet, but the winner's receipt is there.
    expect(await state(org, invite.inviteId, person.userId)).toEqual({ outcome: [], audits: [], roles: [], live: false });
    expect((await accept(bearer, token)).status).toBe(200);
    expect((await accept(bearer, token)).status).toBe(200);
    expect(await state(org, invite.inviteId, person.userId)).toEqual({
      outcome: ['accepted'],
      audits: ['invite.accepted'],
      roles: ['Viewer'],
      live: false,
    });
    expect(await reconcile(org)).toMatchObject({ finished: 0, alreadyFinished: 1 });
  });

  it('never repeated, one reconciler run finishes the accept and the cancel, and a second run finds nothing', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const accepted = await create(org, person.email);
    const cancelled = await create(org, 'cancel.lost@example.test');
    const bearer = await stack.token({ userId: person.userId, email: person.email });
    stack.redisProxy.faults.set({ delayMs: 2_600 });
    try {
      const answers = await Promise.all([accept(bearer, accepted.token), cancel(org, cancelled.invite.inviteId)]);
      expect(answers.map((r) => r.status)).toEqual([503, 503]);
    } finally {
      stack.redisProxy.faults.clear();
    }
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(await reconcile(org)).toEqual({ visited: 2, finished: 2, alreadyFinished: 0, pending: 0 });
    expect(await state(org, accepted.invite.inviteId, person.userId)).toEqual({
      outcome: ['accepted'],
      audits: ['invite.accepted'],
      roles: ['Viewer'],
      live: false,
    });
    expect(await state(org, cancelled.invite.inviteId, person.userId)).toMatchObject({
      outcome: ['cancelled'],
      audits: ['invite.cancelled'],
      live: false,
    });
    expect(await reconcile(org)).toEqual({ visited: 0, finished: 0, alreadyFinished: 0, pending: 0 });
    // The winner's late repeat still gets its answer, and nothing new is written.
    expect((await accept(bearer, accepted.token)).status).toBe(200);
    expect((await state(org, accepted.invite.inviteId, person.userId)).audits).toEqual(['invite.accepted']);
  });
});

describe('a reply lost after COMMIT (the Neon proxy cuts the client once the transaction committed)', () => {
  it('accept: 503, then the same account gets the same 200, and nothing is granted or audited twice', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const { invite, token } = await create(org, person.email);
    const bearer = await stack.token({ userId: person.userId, email: person.email });
    stack.neonProxy.faults.set({ cutAfterCommit: { matching: /INSERT INTO role_assignments/, times: 1 } });
    try {
      expect((await accept(bearer, token)).status).toBe(503);
    } finally {
      stack.neonProxy.faults.clear();
    }
    // Committed, though the caller never heard: not given back.
    expect(await state(org, invite.inviteId, person.userId)).toEqual({
      outcome: ['accepted'],
      audits: ['invite.accepted'],
      roles: ['Viewer'],
      live: false,
    });
    const again = await accept(bearer, token);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ organizationId: org.organizationId, locationId: null, roleCode: 'Viewer' });
    expect((await state(org, invite.inviteId, person.userId)).audits).toEqual(['invite.accepted']);
    expect(await reconcile(org)).toMatchObject({ finished: 0, alreadyFinished: 1 });
  });

  it('cancel: 503, the invite stays gone, a repeat answers 204 with no second row', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const { invite } = await create(org, person.email);
    stack.neonProxy.faults.set({ cutAfterCommit: { matching: /INSERT INTO invite_outcomes/, times: 1 } });
    try {
      expect((await cancel(org, invite.inviteId)).status).toBe(503);
    } finally {
      stack.neonProxy.faults.clear();
    }
    expect(await state(org, invite.inviteId, person.userId)).toMatchObject({
      outcome: ['cancelled'],
      audits: ['invite.cancelled'],
      live: false,
    });
    expect((await cancel(org, invite.inviteId)).status).toBe(204);
    expect((await state(org, invite.inviteId, person.userId)).audits).toEqual(['invite.cancelled']);
  });
});

describe('nothing finished comes back', () => {
  it('an accept whose PostgreSQL write failed, then a cancel: the cancel wins, the retry gets 410, the invite stays gone', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const { invite, token } = await create(org, person.email);
    const bearer = await stack.token({ userId: person.userId, email: person.email });
    stack.neonProxy.faults.set({ refuse: true });
    try {
      expect((await accept(bearer, token)).status).toBe(503);
    } finally {
      stack.neonProxy.faults.clear();
    }
    expect((await cancel(org, invite.inviteId)).status).toBe(204);
    expect((await accept(bearer, token)).status).toBe(410);
    expect(await reconcile(org)).toMatchObject({ finished: 0, pending: 0 });
    expect(await state(org, invite.inviteId, person.userId)).toEqual({
      outcome: ['cancelled'],
      audits: ['invite.cancelled'],
      roles: [],
      live: false,
    });
  });

  it('a cancel whose PostgreSQL write failed is finished by its repeat, and never gives the invite back', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const { invite, token } = await create(org, person.email);
    stack.neonProxy.faults.set({ refuse: true });
    try {
      // Below the route, so the RBAC read does not fail first: only the cancel's own write meets the refused database.
      const input = { organizationId: org.organizationId, inviteId: invite.inviteId, actorUserId: org.adminId, correlationId: 'c-1' };
      await expect(invites.cancel(stack.deps, input)).rejects.toThrow(/database call failed/);
    } finally {
      stack.neonProxy.faults.clear();
    }
    expect(await state(org, invite.inviteId, person.userId)).toMatchObject({ outcome: [], live: false });
    const bearer = await stack.token({ userId: person.userId, email: person.email });
    expect((await accept(bearer, token)).status).toBe(410);
    expect((await cancel(org, invite.inviteId)).status).toBe(204);
    expect(await state(org, invite.inviteId, person.userId)).toEqual({
      outcome: ['cancelled'],
      audits: ['invite.cancelled'],
      roles: [],
      live: false,
    });
  });
});

describe('a cancel while an accept is in flight', () => {
  it('an accept refused for good (role conflict) does not give the invite back once an admin asked to cancel it', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    await grant(org, person.userId, person.email, 'Accountant');
    const { invite, token } = await create(org, person.email, 'Viewer');
    // Hold the accept between its script and its transaction, as a slow database would.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slowDb = {
      ...stack.deps.db,
      transaction: async (statements: Parameters<typeof stack.deps.db.transaction>[0]) => {
        await held;
        return stack.deps.db.transaction(statements);
      },
    };
    const accepting = invites.accept(
      { ...stack.deps, db: slowDb },
      {
        token,
        userId: person.userId,
        verifiedEmail: person.email,
        correlationId: 'c-accept',
      },
    );
    // The accept's script has consumed the invite once its receipt exists.
    const receiptKey = stack.deps.keys.inviteReceipt(org.organizationId, invite.inviteId);
    for (let i = 0; i < 100 && (await stack.redis.exists(receiptKey)) === 0; i++) await new Promise((r) => setTimeout(r, 10));
    // The admin's cancel marks the receipt, and its own write is refused: its outcome is left to the reconciler.
    stack.neonProxy.faults.set({ refuse: true });
    try {
      const input = { organizationId: org.organizationId, inviteId: invite.inviteId, actorUserId: org.adminId, correlationId: 'c-cancel' };
      await expect(invites.cancel(stack.deps, input)).rejects.toThrow(/database call failed/);
    } finally {
      stack.neonProxy.faults.clear();
    }
    release();
    expect(await accepting).toEqual({ ok: false, reason: 'role-conflict', heldRole: 'Accountant' });
    // Not given back: the admin asked to cancel it.
    expect((await state(org, invite.inviteId, person.userId)).live).toBe(false);
    expect(await reconcile(org)).toMatchObject({ finished: 1, pending: 0 });
    expect(await state(org, invite.inviteId, person.userId)).toEqual({
      outcome: ['cancelled'],
      audits: ['invite.cancelled'],
      roles: ['Accountant'],
      live: false,
    });
  });
});

describe('the receipts list', () => {
  it('holds at most one receipt TTL of activity: a consume drops members whose receipts have expired', async () => {
    const org = await stack.seedOrganization();
    const indexKey = stack.deps.keys.inviteReceiptsByOrg(org.organizationId);
    const stale = uuidv7().replaceAll('-', '');
    await stack.redis.zadd(indexKey, Math.floor(Date.now() / 1000) - 3_700, stale);
    const { invite } = await create(org, 'pruned@example.test');
    expect((await cancel(org, invite.inviteId)).status).toBe(204);
    expect(await stack.redis.zscore(indexKey, stale)).toBeNull();
    expect(await stack.redis.zscore(indexKey, invite.inviteId.replaceAll('-', ''))).not.toBeNull();
    expect(await stack.redis.ttl(indexKey)).toBeGreaterThan(3_500);
  });
});

describe('decode before burning', () => {
  it('a stored record this version cannot read is given back on accept and on cancel, and logged', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const { invite, token } = await create(org, person.email);
    const objectKey = stack.deps.keys.inviteObject(org.organizationId, invite.inviteId);
    // A field a newer version added: the strict schema of this version refuses it.
    const stored = JSON.parse((await stack.redis.get(objectKey))!) as Record<string, unknown>;
    await stack.redis.set(objectKey, JSON.stringify({ ...stored, addedLater: true }), 'KEEPTTL');
    const bearer = await stack.token({ userId: person.userId, email: person.email });
    expect((await accept(bearer, token)).status).toBe(503);
    expect(await state(org, invite.inviteId, person.userId)).toEqual({ outcome: [], audits: [], roles: [], live: true });
    expect((await cancel(org, invite.inviteId)).status).toBe(503);
    expect(await state(org, invite.inviteId, person.userId)).toEqual({ outcome: [], audits: [], roles: [], live: true });
    expect(await stack.redis.ttl(objectKey)).toBeGreaterThan(10_000);
    expect(stack.logs.filter((line) => line.includes('invite_record_unreadable'))).toHaveLength(2);
    // Listed again under its org index, so the admin still sees it.
    expect(
      await stack.redis.zscore(stack.deps.keys.inviteActiveByOrg(org.organizationId), invite.inviteId.replaceAll('-', '')),
    ).not.toBeNull();
  });
});
