// Refresh against its adversaries: a client that retries every refresh, two tabs refreshing at once, a thief replaying an
// old token, a session left idle, an organisation suspended meanwhile. Real Redis and PostgreSQL, a clock the test moves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { createJsonLogger } from '../../lib/log/logger.ts';
import { composeApp } from '../../local/stack/app.ts';
import { errorCode, passwordSignIn, type SignedIn } from '../support/sessions.ts';
import { startStack, type TestStack } from '../support/stack.ts';

const IDLE_SECONDS = 7_200;
const GRACE_SECONDS = 30;

// The app's clock runs `offsetMs` ahead of the real one; tests that move it put it back. Tokens signed while it is ahead
// are never presented (the verifier measures their lifetime against the real clock).
let offsetMs = 0;
const clock = { now: () => Date.now() + offsetMs };

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({ separateRevocationProxy: true, deps: { clock } });
});
afterAll(async () => stack?.close());

interface Pair {
  accessToken: string;
  refreshToken: string;
  sessionExpiresAtUtc: string;
}

async function signedIn(): Promise<SignedIn & { userId: string; organizationId: string }> {
  const org = await stack.seedOrganization();
  const signIn = await passwordSignIn(stack, { userId: org.adminId, email: org.adminEmail });
  return { ...(await signIn(org.organizationId)), userId: org.adminId, organizationId: org.organizationId };
}

const refresh = (refreshToken: string, request = stack.request) => request('POST', '/auth/refresh', { body: { refreshToken } });

async function refreshed(refreshToken: string): Promise<Pair> {
  const response = await refresh(refreshToken);
  expect(response.status).toBe(200);
  return (await response.json()) as Pair;
}

/** A route any live token passes (the context read: 404 with none set), to tell a refused token from a live one. */
async function tokenAnswer(token: string): Promise<string> {
  const response = await stack.request('GET', '/auth/context', { token });
  return response.status === 404 ? 'live' : `${response.status} ${await errorCode(response)}`;
}

/** The same stores with no grace (REFRESH_RETRY_GRACE_SECONDS=0), as refresh was before the grace existed. */
function strictApp() {
  return composeApp({ ...stack.env, REFRESH_RETRY_GRACE_SECONDS: '0' }, { logger: createJsonLogger(() => undefined) });
}

async function sessionRow(sessionId: string) {
  const { rows } = await stack.db.query('SELECT revoked_at, last_seen_at, created_at FROM sessions WHERE id = $1', [sessionId]);
  return rows[0] as { revoked_at: Date | null; last_seen_at: Date; created_at: Date };
}

/** The session's refresh tokens not yet spent: exactly one while it is live, whatever was retried. */
async function unspentTokens(sessionId: string): Promise<number> {
  const { rows } = await stack.db.query('SELECT count(*)::int AS n FROM refresh_tokens WHERE session_id = $1 AND used_at IS NULL', [
    sessionId,
  ]);
  return (rows[0] as { n: number }).n;
}

async function audits(action: string, userId: string): Promise<Array<{ details: Record<string, unknown> }>> {
  const { rows } = await stack.db.query('SELECT details FROM audit_events WHERE action = $1 AND actor_user_id = $2', [action, userId]);
  return rows as Array<{ details: Record<string, unknown> }>;
}

async function expectEnded(sessionId: string, accessTokens: string[]): Promise<void> {
  expect((await sessionRow(sessionId)).revoked_at).toBeInstanceOf(Date);
  expect(await stack.redis.exists(stack.deps.keys.revokedSession(sessionId))).toBe(1);
  for (const token of accessTokens) expect(await tokenAnswer(token)).toBe('401 TOKEN_REVOKED');
}

describe('a client that retries every refresh', () => {
  it('gets 200 twice for the same token within the grace: the same session, the same next refresh token, one live successor', async () => {
    const session = await signedIn();
    let current = session.refreshToken;
    for (let round = 0; round < 3; round++) {
      const first = await refreshed(current);
      // The reply was "lost": the client sends the same token again.
      const retry = await refreshed(current);
      expect(retry.refreshToken).toBe(first.refreshToken);
      expect(retry.accessToken).not.toBe(first.accessToken);
      expect(decodeJwt(retry.accessToken).sid).toBe(session.sessionId);
      expect(retry.sessionExpiresAtUtc).toBe(first.sessionExpiresAtUtc);
      expect(await tokenAnswer(first.accessToken)).toBe('live');
      expect(await tokenAnswer(retry.accessToken)).toBe('live');
      expect(await unspentTokens(session.sessionId)).toBe(1);
      current = retry.refreshToken;
    }
    // The retries wrote nothing: one spent token per round and the live one, and no reuse recorded.
    const { rows } = await stack.db.query('SELECT count(*)::int AS n FROM refresh_tokens WHERE session_id = $1', [session.sessionId]);
    expect((rows[0] as { n: number }).n).toBe(4);
    expect(await audits('session.refresh_reused', session.userId)).toEqual([]);
    expect((await sessionRow(session.sessionId)).revoked_at).toBeNull();
    expect(stack.logs.filter((line) => line.includes('"refresh_retried"') && line.includes(session.userId))).toHaveLength(3);
  });

  it('once the successor has been used, the old token again is theft: the session ends and session.refresh_reused is audited', async () => {
    const session = await signedIn();
    const first = await refreshed(session.refreshToken);
    const second = await refreshed(first.refreshToken);
    const reuse = await refresh(session.refreshToken);
    expect([reuse.status, await errorCode(reuse)]).toEqual([401, 'REFRESH_INVALID']);
    await expectEnded(session.sessionId, [session.accessToken, first.accessToken, second.accessToken]);
    expect((await refresh(second.refreshToken)).status).toBe(401);
    expect(await audits('session.refresh_reused', session.userId)).toHaveLength(1);
  });

  it('after the grace the same token again is theft too, even with its successor unused', async () => {
    const session = await signedIn();
    const first = await refreshed(session.refreshToken);
    offsetMs = (GRACE_SECONDS + 1) * 1000;
    let late: Response;
    try {
      late = await refresh(session.refreshToken);
    } finally {
      offsetMs = 0;
    }
    expect([late.status, await errorCode(late)]).toEqual([401, 'REFRESH_INVALID']);
    await expectEnded(session.sessionId, [session.accessToken, first.accessToken]);
    expect((await refresh(first.refreshToken)).status).toBe(401);
    expect(await audits('session.refresh_reused', session.userId)).toHaveLength(1);
  });

  it('with REFRESH_RETRY_GRACE_SECONDS=0 every second use is theft, as before the grace existed', async () => {
    const strict = strictApp();
    const session = await signedIn();
    expect((await refresh(session.refreshToken, strict.request)).status).toBe(200);
    expect((await refresh(session.refreshToken, strict.request)).status).toBe(401);
    await expectEnded(session.sessionId, [session.accessToken]);
  });

  it('a retry of a session revoked meanwhile is refused like any token of it', async () => {
    const session = await signedIn();
    const first = await refreshed(session.refreshToken);
    expect((await stack.request('POST', '/auth/logout', { token: first.accessToken })).status).toBe(204);
    const retry = await refresh(session.refreshToken);
    expect([retry.status, await errorCode(retry)]).toEqual([401, 'REFRESH_INVALID']);
  });
});

describe('two tabs refreshing at once', () => {
  it('both get a working pair of the same session, the same next refresh token, and the session stays alive', async () => {
    const session = await signedIn();
    const answers = await Promise.all([1, 2, 3, 4].map(() => refresh(session.refreshToken)));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    const pairs = (await Promise.all(answers.map((answer) => answer.json()))) as Pair[];
    expect(new Set(pairs.map((pair) => pair.refreshToken)).size).toBe(1);
    for (const pair of pairs) {
      expect(decodeJwt(pair.accessToken).sid).toBe(session.sessionId);
      expect(await tokenAnswer(pair.accessToken)).toBe('live');
    }
    expect(await unspentTokens(session.sessionId)).toBe(1);
    // Whichever tab's storage won holds the one live token, and it goes on working.
    const next = await refreshed(pairs[0]!.refreshToken);
    expect(await tokenAnswer(next.accessToken)).toBe('live');
    expect((await sessionRow(session.sessionId)).revoked_at).toBeNull();
    expect(await audits('session.refresh_reused', session.userId)).toEqual([]);
  });

  it('really race (positive control): without the grace the same four calls leave one winner and end the session', async () => {
    const strict = strictApp();
    const session = await signedIn();
    const answers = await Promise.all([1, 2, 3, 4].map(() => refresh(session.refreshToken, strict.request)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401, 401, 401]);
    expect((await sessionRow(session.sessionId)).revoked_at).toBeInstanceOf(Date);
  });
});

describe('a thief replaying an old refresh token', () => {
  it('after the owner moved on, ends the session: the owner and the thief both sign in again', async () => {
    const session = await signedIn();
    const stolen = session.refreshToken;
    let owner = await refreshed(stolen);
    owner = await refreshed(owner.refreshToken);
    owner = await refreshed(owner.refreshToken);
    const replay = await refresh(stolen);
    expect([replay.status, await errorCode(replay)]).toEqual([401, 'REFRESH_INVALID']);
    await expectEnded(session.sessionId, [owner.accessToken]);
    const ownerNext = await refresh(owner.refreshToken);
    expect([ownerNext.status, await errorCode(ownerNext)]).toEqual([401, 'REFRESH_INVALID']);
    expect(await audits('session.refresh_reused', session.userId)).toHaveLength(1);
    const warn = stack.logs.find((line) => line.includes('"refresh_token_reused"') && line.includes(session.userId));
    expect(warn).toBeDefined();
    expect(warn).not.toContain(stolen);
    expect(warn).not.toContain(session.sessionId);
  });

  it('a copy of the middle token replayed while the owner holds the next one is theft as well', async () => {
    const session = await signedIn();
    const copied = await refreshed(session.refreshToken);
    const owner = await refreshed(copied.refreshToken);
    await refreshed(owner.refreshToken);
    expect((await refresh(copied.refreshToken)).status).toBe(401);
    expect((await sessionRow(session.sessionId)).revoked_at).toBeInstanceOf(Date);
  });
});

describe('the idle timeout', () => {
  it('a refresh after SESSION_IDLE_TIMEOUT_SECONDS of idleness is refused and ends the session (PostgreSQL, denylist, audit)', async () => {
    const session = await signedIn();
    offsetMs = (IDLE_SECONDS + 1) * 1000;
    let late: Response;
    try {
      late = await refresh(session.refreshToken);
    } finally {
      offsetMs = 0;
    }
    expect([late.status, await errorCode(late)]).toEqual([401, 'REFRESH_INVALID']);
    await expectEnded(session.sessionId, [session.accessToken]);
    const ended = await audits('session.idle_ended', session.userId);
    expect(ended).toEqual([{ details: { idleTimeoutSeconds: IDLE_SECONDS } }]);
    expect(JSON.stringify(ended)).not.toContain(session.sessionId);
    // Ended for good: the clock put back, the same token is still refused.
    expect((await refresh(session.refreshToken)).status).toBe(401);
  });

  it('counts from the last refresh, not from the sign-in: a session in use outlives it', async () => {
    const session = await signedIn();
    const opened = await sessionRow(session.sessionId);
    expect(opened.last_seen_at.getTime()).toBe(opened.created_at.getTime());
    let current = session.refreshToken;
    try {
      for (let i = 1; i <= 3; i++) {
        offsetMs = i * (IDLE_SECONDS - 60) * 1000;
        current = (await refreshed(current)).refreshToken;
        expect(Math.abs((await sessionRow(session.sessionId)).last_seen_at.getTime() - clock.now())).toBeLessThan(5_000);
      }
      offsetMs = 3 * (IDLE_SECONDS - 60) * 1000 + (IDLE_SECONDS + 1) * 1000;
      expect((await refresh(current)).status).toBe(401);
    } finally {
      offsetMs = 0;
    }
    expect((await sessionRow(session.sessionId)).revoked_at).toBeInstanceOf(Date);
  });
});

describe('a suspended organisation', () => {
  it('refresh answers 403 TENANT_SUSPENDED and spends nothing; once reactivated the same token works', async () => {
    const session = await signedIn();
    await stack.db.query("UPDATE organizations SET state = 'suspended', suspension_reason = 'test', suspended_at = now() WHERE id = $1", [
      session.organizationId,
    ]);
    try {
      for (let i = 0; i < 2; i++) {
        const refused = await refresh(session.refreshToken);
        expect(refused.status).toBe(403);
        expect(await refused.json()).toEqual({
          error: { code: 'TENANT_SUSPENDED', message: 'this organisation is suspended; an operator must reactivate it first' },
        });
      }
      expect((await sessionRow(session.sessionId)).revoked_at).toBeNull();
      expect(await stack.redis.exists(stack.deps.keys.revokedSession(session.sessionId))).toBe(0);
    } finally {
      await stack.db.query("UPDATE organizations SET state = 'active', suspension_reason = NULL, suspended_at = NULL WHERE id = $1", [
        session.organizationId,
      ]);
    }
    const next = await refreshed(session.refreshToken);
    expect(await tokenAnswer(next.accessToken)).toBe('live');
    expect(await audits('session.refresh_reused', session.userId)).toEqual([]);
  });

  it('a retry within the grace is refused while suspended too, and a theft still ends the session', async () => {
    const retrying = await signedIn();
    await refreshed(retrying.refreshToken);
    const robbed = await signedIn();
    const first = await refreshed(robbed.refreshToken);
    await refreshed(first.refreshToken);
    const organizations = [retrying.organizationId, robbed.organizationId];
    await stack.db.query("UPDATE organizations SET state = 'suspended', suspension_reason = 'test' WHERE id = ANY($1)", [organizations]);
    try {
      const retry = await refresh(retrying.refreshToken);
      expect([retry.status, await errorCode(retry)]).toEqual([403, 'TENANT_SUSPENDED']);
      expect((await sessionRow(retrying.sessionId)).revoked_at).toBeNull();
      expect((await refresh(robbed.refreshToken)).status).toBe(401);
      expect((await sessionRow(robbed.sessionId)).revoked_at).toBeInstanceOf(Date);
    } finally {
      await stack.db.query("UPDATE organizations SET state = 'active', suspension_reason = NULL WHERE id = ANY($1)", [organizations]);
    }
  });
});
