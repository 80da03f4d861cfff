// No lockout by strangers: failed sign-ins lock the (organisation, email, address) that made them — an IPv6 caller per
// /64 — while the email's own count only sets a bounded wait before the derivation, so the person's right password from
// an address that has not failed still signs in. The waits are read from the stack's clock (it records each and answers
// at once); one test waits for real, on a counter set just past the allowance.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import type { Clock } from '../../lib/deps.ts';
import { randomBytes } from '../../lib/crypto/index.ts';
import { SIGN_IN_DELAY, THROTTLE_LIMITS, throttleWindow } from '../../lib/runtime/throttle/index.ts';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { setPassword } from '../support/fixtures.ts';
import { startStack, type TestStack } from '../support/stack.ts';

const waits: number[] = [];
const recordingClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => {
    waits.push(ms);
    return Promise.resolve();
  },
};

let stack: TestStack;
let realStack: TestStack;
beforeAll(async () => {
  stack = await startStack({ deps: { clock: recordingClock } });
  realStack = await startStack();
});
afterAll(async () => {
  await stack?.close();
  await realStack?.close();
});

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;
const hex = () => Buffer.from(randomBytes(2)).toString('hex');
const fresh64 = () => `2001:db8:${hex()}:${hex()}`;
const inside = (prefix: string) => `${prefix}:${hex()}:${hex()}:${hex()}:${hex()}`;
const freshV4 = () => `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${1 + (randomBytes(1)[0]! % 250)}`;

async function member(on: TestStack): Promise<{ org: Org; password: string }> {
  const org = await on.seedOrganization();
  const password = `pw-${uuidv7()}`;
  await setPassword(on.db, org.adminId, password);
  return { org, password };
}

function login(on: TestStack, org: Org, password: string, ip: string) {
  return on.request('POST', '/auth/login', {
    body: { organizationId: org.organizationId, email: org.adminEmail, password },
    headers: { [TEST_CLIENT_IP_HEADER]: ip },
  });
}

/** The KDF runs only for attempts that were not refused: count them by the answers, 401 (derived) against 429 (not). */
async function guess(org: Org, ip: string, times: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < times; i++) statuses.push((await login(stack, org, `wrong-${i}`, ip)).status);
  return statuses;
}

describe('no lockout by strangers', () => {
  it("an attacker's failures lock their addresses (one IPv4, one whole /64), and the right password from another address signs in", async () => {
    const { org, password } = await member(stack);
    const { limit } = THROTTLE_LIMITS['login-address'];
    const a = freshV4();
    // Address A: its 10 guesses are answered (each a derivation), then A is refused, for the right password too.
    expect(await guess(org, a, limit + 2)).toEqual([...Array<number>(limit).fill(401), 429, 429]);
    const refused = await login(stack, org, password, a);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // A whole /64 is one address: rotating inside it buys nothing.
    const prefix = fresh64();
    const fromPrefix: number[] = [];
    for (let i = 0; i < limit + 3; i++) fromPrefix.push((await login(stack, org, `wrong-v6-${i}`, inside(prefix))).status);
    expect(fromPrefix).toEqual([...Array<number>(limit).fill(401), 429, 429, 429]);

    // The person, from an address that never failed: signed in, after at most the stated wait.
    waits.length = 0;
    const person = await login(stack, org, password, freshV4());
    expect(person.status).toBe(200);
    expect(waits.length).toBe(1);
    expect(waits[0]).toBeGreaterThan(0);
    expect(waits[0]).toBeLessThanOrEqual(SIGN_IN_DELAY.maxMs);
    // And from a fresh /64, with the bound holding however far past the allowance the email is.
    waits.length = 0;
    expect((await login(stack, org, password, inside(fresh64()))).status).toBe(200);
    expect(waits).toEqual([SIGN_IN_DELAY.maxMs]);
  });

  it('the wait grows per attempt past the email allowance, from the first wait up to the bound, whatever the address', async () => {
    const { org } = await member(stack);
    const allowance = THROTTLE_LIMITS.login.limit;
    waits.length = 0;
    // One guess per address: none of them is locked, so only the email's count can slow them.
    for (let i = 0; i < allowance + 6; i++) expect((await login(stack, org, `wrong-${i}`, freshV4())).status).toBe(401);
    expect(waits).toEqual([250, 500, 1_000, 2_000, 4_000, 4_000].map((ms) => Math.min(ms, SIGN_IN_DELAY.maxMs)));
    expect(SIGN_IN_DELAY.firstMs).toBe(250);
  });

  it('a locked address costs no derivation and adds nothing to the wait of others', async () => {
    const { org } = await member(stack);
    const a = freshV4();
    await guess(org, a, THROTTLE_LIMITS['login-address'].limit);
    const emailWindow = await throttleWindow(stack.deps, {
      action: 'login',
      scope: { kind: 'org', id: org.organizationId },
      subject: org.adminEmail,
    });
    const before = await stack.redis.get(emailWindow.key);
    expect(before).toBe(String(THROTTLE_LIMITS['login-address'].limit));
    // Past its lock, A's attempts are refused by the counting script itself (429 is answered before the derivation,
    // lib/auth/sign-in.ts), and the email's count, which sets everyone's wait, stays where it was.
    expect(await guess(org, a, 5)).toEqual([429, 429, 429, 429, 429]);
    expect(await stack.redis.get(emailWindow.key)).toBe(before);
  });

  it("tenant A's guesses leave the same email's wait in tenant B untouched", async () => {
    const { org: a, password } = await member(stack);
    const b = await stack.seedOrganization();
    await stack.db.query(
      "INSERT INTO role_assignments (id, user_id, organization_id, location_id, role_code) VALUES ($1, $2, $3, NULL, 'Viewer')",
      [uuidv7(), a.adminId, b.organizationId],
    );
    for (let i = 0; i < THROTTLE_LIMITS.login.limit + 2; i++) await login(stack, a, `wrong-${i}`, freshV4());
    waits.length = 0;
    const elsewhere = await stack.request('POST', '/auth/login', {
      body: { organizationId: b.organizationId, email: a.adminEmail, password },
      headers: { [TEST_CLIENT_IP_HEADER]: freshV4() },
    });
    expect(elsewhere.status).toBe(200);
    expect(waits).toEqual([]);
  });

  it('the wait is a real timer before the derivation: measured, at least the first wait, well under the bound', async () => {
    const { org, password } = await member(realStack);
    const window = await throttleWindow(realStack.deps, {
      action: 'login',
      scope: { kind: 'org', id: org.organizationId },
      subject: org.adminEmail,
    });
    // The email's count at its allowance: the next attempt is the first one over it.
    await realStack.redis.set(window.key, String(window.limit), 'EX', window.ttlSeconds);
    const started = performance.now();
    const response = await login(realStack, org, password, freshV4());
    const elapsed = performance.now() - started;
    expect(response.status).toBe(200);
    expect(elapsed).toBeGreaterThanOrEqual(SIGN_IN_DELAY.firstMs);
    expect(elapsed).toBeLessThan(SIGN_IN_DELAY.firstMs + 10_000);
  });

  it('with Redis down the attempt goes on, without a wait (fail open, as before)', async () => {
    const { org, password } = await member(stack);
    waits.length = 0;
    stack.redisProxy.faults.set({ failCommands: ['evalsha', 'eval'] });
    let response: Response;
    try {
      response = await login(stack, org, password, freshV4());
    } finally {
      stack.redisProxy.faults.clear();
    }
    expect(response.status).toBe(200);
    expect(waits).toEqual([]);
  });
});
