// The webhook delivery engine on real Redis and PostgreSQL, to receivers on 127.0.0.1: signed per Standard Webhooks and
// verified with the `standardwebhooks` package, sent after the answer and by the scheduled task, retried on the
// schedule with one webhook-id, failed and audited, an endpoint disabled after 5 days failing, one send and one ending
// per attempt however many isolates try, both signatures during a rotation, no redirect followed, and nothing secret logged.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { createApp } from '../../functions/app.ts';
import { createDeps } from '../../lib/create-deps.ts';
import type { Clock, Deps } from '../../lib/deps.ts';
import { createJsonLogger } from '../../lib/log/logger.ts';
import { createBudget } from '../../lib/runtime/cron-task/budget.ts';
import { deliver } from '../../lib/events/delivery/deliver.ts';
import { webhookDeliveryTask, DELIVERIES_PER_ORGANIZATION_PER_RUN } from '../../lib/events/delivery/delivery-task.ts';
import { recordOutcome } from '../../lib/events/delivery/record-outcome.ts';
import { RETRY_DELAYS_MS, SCHEDULE_SPAN_MS } from '../../lib/events/delivery/schedule.ts';
import { webhookIdOf } from '../../lib/events/delivery/signature.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../local/fakes/index.ts';
import { createScratchDatabase, DEFAULT_DATABASE_URL, type ScratchDatabase } from '../../local/processes/scratch-database.ts';
import { memberFixtures } from '../support/members.ts';
import { newOperator } from '../support/operators.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { deliveriesOf, emitRoleChange, seedEndpoint } from '../support/webhook-endpoints.ts';

const DAY_MS = 86_400_000;
const operator = newOperator('ops');

// A database of its own: the scheduled task sends every due delivery it can see.
let database: ScratchDatabase;
let stack: TestStack;
const receivers: WebhookReceiver[] = [];
/** Every log line of every isolate this file builds, for the canary. */
const lines: string[] = [];

beforeAll(async () => {
  database = await createScratchDatabase(process.env.TEST_DATABASE_ADMIN_URL ?? DEFAULT_DATABASE_URL, 'test');
  stack = await startStack({ databaseUrl: database.url, env: { OPERATOR_TOKEN_HASHES: operator.entry } });
});
afterAll(async () => {
  await stack?.close();
  await database?.drop();
});
afterEach(async () => {
  for (const receiver of receivers.splice(0)) await receiver.close();
});

async function receiver(secrets: readonly string[] = []): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver({ secrets });
  receivers.push(started);
  return started;
}

/** A clock the test moves; it starts at the real time, so the package's ±5 min check holds until a test moves it. */
function testClock(): Clock & { set(ms: number): void } {
  let now = Date.now();
  return { now: () => now, set: (ms) => void (now = ms) };
}

/** Deps of one more isolate on the same stores, with its own clock; its log lines join the file's. */
function isolate(clock: Clock): Deps {
  return createDeps(stack.config, { clock, logger: createJsonLogger((line) => lines.push(line)) });
}

function runTask(deps: Deps, commands = 1_000) {
  return webhookDeliveryTask.run(deps, createBudget({ commands, timeMs: 10_000 }, deps.clock), { correlationId: 'webhook-delivery-test' });
}

async function auditOf(organizationId: string, action: string) {
  const result = await stack.db.query('SELECT target_id, details FROM audit_events WHERE organization_id = $1 AND action = $2', [
    organizationId,
    action,
  ]);
  return result.rows as Array<{ target_id: string; details: Record<string, unknown> }>;
}

describe('sending', () => {
  it('sends a role change right after the answer, signed so the package verifies it, and ends the delivery once', async () => {
    const org = await stack.seedOrganization();
    const members = memberFixtures(stack);
    const member = await members.addMember(org.organizationId, 'Viewer');
    const hook = await receiver();
    const endpoint = await seedEndpoint(stack, org.organizationId, hook.url);
    hook.setSecrets([endpoint.secret]);

    const changed = await members.changeRole(org.organizationId, member.userId, org.adminToken, { roleCode: 'Accountant' });
    expect(changed.status).toBe(200);
    await expect.poll(() => hook.received.length, { timeout: 10_000 }).toBe(1);
    const [delivery] = await deliveriesOf(stack, endpoint.endpointId);
    const arrived = hook.received[0]!;
    expect(arrived.verifiedBy).toBe(0);
    expect(arrived.webhookId).toBe(webhookIdOf(delivery!.id));
    const payload = new Webhook(endpoint.secret).verify(arrived.body, {
      'webhook-id': arrived.webhookId,
      'webhook-timestamp': arrived.timestamp,
      'webhook-signature': arrived.signature,
    });
    expect(payload).toMatchObject({
      type: 'member.role_changed',
      data: { organizationId: org.organizationId, userId: member.userId, toRole: 'Accountant', fromRole: 'Viewer' },
    });
    await expect.poll(async () => (await deliveriesOf(stack, endpoint.endpointId))[0]?.state).toBe('succeeded');
    expect((await deliveriesOf(stack, endpoint.endpointId))[0]).toMatchObject({ attempts: 1, last_status: 204, last_error: null });
  });

  it('is sent by the scheduled task too, each organisation at most its share per run', async () => {
    const clock = testClock();
    const deps = isolate(clock);
    const noisy = await stack.seedOrganization();
    const quiet = await stack.seedOrganization();
    const hook = await receiver();
    const noisyEndpoint = await seedEndpoint(stack, noisy.organizationId, hook.url);
    const quietEndpoint = await seedEndpoint(stack, quiet.organizationId, hook.url);
    const at = new Date(clock.now());
    for (let i = 0; i < DELIVERIES_PER_ORGANIZATION_PER_RUN + 10; i++) await emitRoleChange(stack, noisy.organizationId, at);
    await emitRoleChange(stack, quiet.organizationId, at);

    const first = await runTask(deps);
    expect(first).toMatchObject({ task: 'webhook-delivery', done: true, removed: DELIVERIES_PER_ORGANIZATION_PER_RUN + 1 });
    const quietRows = await deliveriesOf(stack, quietEndpoint.endpointId);
    expect(quietRows.map((row) => row.state)).toEqual(['succeeded']);
    const noisyStates = (await deliveriesOf(stack, noisyEndpoint.endpointId)).map((row) => row.state);
    expect(noisyStates.filter((state) => state === 'succeeded')).toHaveLength(DELIVERIES_PER_ORGANIZATION_PER_RUN);
    // The rest next run.
    await runTask(deps);
    expect((await deliveriesOf(stack, noisyEndpoint.endpointId)).every((row) => row.state === 'succeeded')).toBe(true);
    expect(hook.received).toHaveLength(DELIVERIES_PER_ORGANIZATION_PER_RUN + 11);
  });
});

describe('retries', () => {
  it('tries again on the schedule with the same webhook-id, then fails the delivery and audits it', async () => {
    const clock = testClock();
    const deps = isolate(clock);
    const org = await stack.seedOrganization();
    const hook = await receiver();
    hook.answer({ status: 503 });
    const endpoint = await seedEndpoint(stack, org.organizationId, hook.url);
    const start = clock.now();
    await emitRoleChange(stack, org.organizationId, new Date(start));

    let elapsed = 0;
    for (const [index, delay] of RETRY_DELAYS_MS.entries()) {
      elapsed += delay;
      // Just before it is due nothing is sent; at its time, exactly one attempt.
      if (delay > 0) {
        clock.set(start + elapsed - 1);
        await runTask(deps);
        expect(hook.received).toHaveLength(index);
      }
      clock.set(start + elapsed);
      await runTask(deps);
      expect(hook.received).toHaveLength(index + 1);
    }
    const [row] = await deliveriesOf(stack, endpoint.endpointId);
    expect(elapsed).toBe(SCHEDULE_SPAN_MS);
    expect(row).toMatchObject({ state: 'failed', attempts: RETRY_DELAYS_MS.length, last_status: 503, last_error: 'status' });
    expect(new Set(hook.received.map((received) => received.webhookId))).toEqual(new Set([webhookIdOf(row!.id)]));
    expect(await auditOf(org.organizationId, 'webhook.delivery_failed')).toEqual([
      {
        target_id: row!.id,
        details: { endpointId: endpoint.endpointId, reason: 'status', lastStatus: 503, attempts: RETRY_DELAYS_MS.length },
      },
    ]);
    // Ended: later runs send nothing more.
    clock.set(start + 10 * DAY_MS);
    await runTask(deps);
    expect(hook.received).toHaveLength(RETRY_DELAYS_MS.length);
  });

  it('disables an endpoint failing for 5 days at its next failure, audited; a success clears failing_since', async () => {
    const clock = testClock();
    const deps = isolate(clock);
    const org = await stack.seedOrganization();
    const hook = await receiver();
    hook.answer({ status: 500 });
    const failingSince = new Date(clock.now() - 5 * DAY_MS + 60_000);
    const endpoint = await seedEndpoint(stack, org.organizationId, hook.url, { failingSince });
    await emitRoleChange(stack, org.organizationId, new Date(clock.now()));
    await runTask(deps);
    const state = async () =>
      (await stack.db.query('SELECT state, disabled_reason, failing_since FROM webhook_endpoints WHERE id = $1', [endpoint.endpointId]))
        .rows[0] as { state: string; disabled_reason: string | null; failing_since: Date | null };
    // Not yet 5 days.
    expect(await state()).toEqual({ state: 'enabled', disabled_reason: null, failing_since: failingSince });
    clock.set(clock.now() + 5_000 + 60_000);
    await runTask(deps);
    expect(await state()).toEqual({ state: 'disabled', disabled_reason: 'failing', failing_since: failingSince });
    expect(await auditOf(org.organizationId, 'webhook.endpoint_disabled')).toEqual([
      { target_id: endpoint.endpointId, details: { reason: 'failing' } },
    ]);
    // A disabled endpoint is sent nothing: its pending delivery ends failed at its next turn.
    const sent = hook.received.length;
    clock.set(clock.now() + DAY_MS);
    await runTask(deps);
    expect(hook.received).toHaveLength(sent);
    expect((await deliveriesOf(stack, endpoint.endpointId))[0]).toMatchObject({ state: 'failed', last_error: 'endpoint-disabled' });

    // Another endpoint, failing for a day, recovers: the success clears failing_since.
    const healthy = await receiver();
    const recovering = await seedEndpoint(stack, org.organizationId, healthy.url, { failingSince: new Date(clock.now() - DAY_MS) });
    await emitRoleChange(stack, org.organizationId, new Date(clock.now()));
    await runTask(deps);
    expect(healthy.received).toHaveLength(1);
    const after = await stack.db.query('SELECT state, failing_since FROM webhook_endpoints WHERE id = $1', [recovering.endpointId]);
    expect(after.rows[0]).toEqual({ state: 'enabled', failing_since: null });
  });
});

/**
 * The app of one more isolate, answering as the Node entry does; `defer` keeps the work it was handed after each answer
 * (its own and the handlers', so a test can wait for all of it to end), or is absent as on Lambda.
 */
function isolateApp(deps: Deps, options: { lambda?: boolean } = {}) {
  const deferred: Array<Promise<unknown>> = [];
  const app = createApp(() => deps, {
    clientIp: () => '127.0.0.1',
    ...(options.lambda === true ? {} : { defer: (_c, work) => void deferred.push(work) }),
  });
  const retry = (org: { organizationId: string; adminToken: string }, endpointId: string, deliveryId: string) =>
    app.request(`/orgs/${org.organizationId}/webhook-endpoints/${endpointId}/deliveries/${deliveryId}/retry`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.adminToken}` },
    });
  return { deferred, retry };
}

/** A delivery of a new role change that has ended `failed`, as after its last attempt. */
async function failedDelivery(organizationId: string, endpointId: string, at: Date) {
  await emitRoleChange(stack, organizationId, at);
  const [row] = await deliveriesOf(stack, endpointId);
  await stack.db.query(
    `UPDATE webhook_endpoint_deliveries SET state = 'failed', attempts = 8, ended_at = now(), last_status = 503, last_error = 'status' WHERE id = $1`,
    [row!.id],
  );
  return row!.id;
}

describe("an admin's retry", () => {
  it('sends the retried delivery right after the answer, with its webhook-id, and ends it once', async () => {
    const clock = testClock();
    const org = await stack.seedOrganization();
    const hook = await receiver();
    const endpoint = await seedEndpoint(stack, org.organizationId, hook.url);
    hook.setSecrets([endpoint.secret]);
    const deliveryId = await failedDelivery(org.organizationId, endpoint.endpointId, new Date(clock.now()));
    const { retry } = isolateApp(isolate(clock));

    expect((await retry(org, endpoint.endpointId, deliveryId)).status).toBe(202);
    // No scheduled run here: only the work after the answer can send it.
    await expect.poll(() => hook.received.length, { timeout: 10_000 }).toBe(1);
    expect(hook.received[0]).toMatchObject({ webhookId: webhookIdOf(deliveryId), verifiedBy: 0 });
    await expect.poll(async () => (await deliveriesOf(stack, endpoint.endpointId))[0]?.state).toBe('succeeded');
    expect((await deliveriesOf(stack, endpoint.endpointId))[0]).toMatchObject({ attempts: 1, last_status: 204, last_error: null });
  });

  it('on Lambda (no work after the answer) leaves it due for the next scheduled run, which sends it', async () => {
    const clock = testClock();
    const deps = isolate(clock);
    const org = await stack.seedOrganization();
    const hook = await receiver();
    const endpoint = await seedEndpoint(stack, org.organizationId, hook.url);
    const deliveryId = await failedDelivery(org.organizationId, endpoint.endpointId, new Date(clock.now()));

    expect((await isolateApp(deps, { lambda: true }).retry(org, endpoint.endpointId, deliveryId)).status).toBe(202);
    // Nothing runs after a Lambda answer, so nothing can be on its way: the receiver has heard nothing.
    expect([hook.inFlight, hook.received.length]).toEqual([0, 0]);
    expect((await deliveriesOf(stack, endpoint.endpointId))[0]).toMatchObject({ state: 'pending', attempts: 0 });
    await runTask(deps);
    expect(hook.received.map((arrived) => arrived.webhookId)).toEqual([webhookIdOf(deliveryId)]);
    expect((await deliveriesOf(stack, endpoint.endpointId))[0]).toMatchObject({ state: 'succeeded', attempts: 1 });
  });

  it('the scheduled run meeting the send after the answer: one send, one ending (the lease)', async () => {
    const clock = testClock();
    const org = await stack.seedOrganization();
    const hook = await receiver();
    hook.answer({ hold: true });
    const endpoint = await seedEndpoint(stack, org.organizationId, hook.url);
    const deliveryId = await failedDelivery(org.organizationId, endpoint.endpointId, new Date(clock.now()));
    const { deferred, retry } = isolateApp(isolate(clock));

    expect((await retry(org, endpoint.endpointId, deliveryId)).status).toBe(202);
    // The send after the answer is at the receiver, held there, under its lease, while the scheduled run goes by.
    await expect.poll(() => hook.inFlight, { timeout: 10_000 }).toBe(1);
    await runTask(isolate(clock));
    expect(hook.inFlight).toBe(1);
    hook.releaseHeld();
    await Promise.all(deferred);
    expect(hook.received.map((arrived) => arrived.webhookId)).toEqual([webhookIdOf(deliveryId)]);
    expect((await deliveriesOf(stack, endpoint.endpointId))[0]).toMatchObject({ state: 'succeeded', attempts: 1 });
  });

  it('a retry while the scheduled run is sending it: one send, one ending (the lease)', async () => {
    const clock = testClock();
    const org = await stack.seedOrganization();
    const hook = await receiver();
    hook.answer({ hold: true });
    const endpoint = await seedEndpoint(stack, org.organizationId, hook.url);
    await emitRoleChange(stack, org.organizationId, new Date(clock.now()));
    const [row] = await deliveriesOf(stack, endpoint.endpointId);
    // Pending after a failed first attempt, its second due in 5 s: the scheduled run's clock is past that.
    await stack.db.query(
      `UPDATE webhook_endpoint_deliveries SET attempts = 1, last_status = 503, last_error = 'status', next_attempt_at = $2 WHERE id = $1`,
      [row!.id, new Date(clock.now() + 5_000)],
    );
    const later = testClock();
    later.set(clock.now() + 10_000);
    const scheduled = runTask(isolate(later));
    await expect.poll(() => hook.inFlight, { timeout: 10_000 }).toBe(1);
    const { deferred, retry } = isolateApp(isolate(clock));

    expect((await retry(org, endpoint.endpointId, row!.id)).status).toBe(202);
    // The send after the answer has ended without sending: the scheduled run holds the lease.
    await Promise.all(deferred);
    expect([hook.inFlight, hook.received.length]).toEqual([1, 0]);
    hook.releaseHeld();
    await scheduled;
    expect(hook.received.map((arrived) => arrived.webhookId)).toEqual([webhookIdOf(row!.id)]);
    expect((await deliveriesOf(stack, endpoint.endpointId))[0]).toMatchObject({ state: 'succeeded', attempts: 2 });
  });
});

describe('one sender, one ending', () => {
  it('two isolates sending the same delivery at once: one send, one ending', async () => {
    const clock = testClock();
    const org = await stack.seedOrganization();
    const hook = await receiver();
    hook.answer({ status: 200, delayMs: 300 });
    const endpoint = await seedEndpoint(stack, org.organizationId, hook.url);
    await emitRoleChange(stack, org.organizationId, new Date(clock.now()));
    const [row] = await deliveriesOf(stack, endpoint.endpointId);
    const ref = { deliveryId: row!.id, organizationId: org.organizationId };

    const [a, b] = await Promise.all([
      deliver(isolate(clock), [ref], { correlationId: 'isolate-a' }),
      deliver(isolate(clock), [ref], { correlationId: 'isolate-b' }),
    ]);
    expect(hook.received).toHaveLength(1);
    expect(a.succeeded + b.succeeded).toBe(1);
    expect(a.skipped + b.skipped).toBe(1);
    expect((await deliveriesOf(stack, endpoint.endpointId))[0]).toMatchObject({ state: 'succeeded', attempts: 1 });
  });

  it('a send whose lease expired cannot overwrite the later attempt that ended the delivery', async () => {
    const clock = testClock();
    const org = await stack.seedOrganization();
    const hook = await receiver();
    hook.answer({ status: 200, delayMs: 500 });
    const endpoint = await seedEndpoint(stack, org.organizationId, hook.url);
    await emitRoleChange(stack, org.organizationId, new Date(clock.now()));
    const [row] = await deliveriesOf(stack, endpoint.endpointId);
    const ref = { deliveryId: row!.id, organizationId: org.organizationId };
    const slowDeps = isolate(clock);

    const slow = deliver(slowDeps, [ref], { correlationId: 'slow' });
    // The slow send is at the receiver, held there.
    await expect.poll(() => hook.inFlight).toBe(1);
    // The slow sender's lease is gone (as if its TTL ran out mid-send): another isolate takes it and ends the delivery.
    await stack.redis.del(slowDeps.keys.webhookDeliveryLease(org.organizationId, row!.id));
    hook.answer({ status: 200 });
    const fast = await deliver(isolate(clock), [ref], { correlationId: 'fast' });
    const late = await slow;
    expect(fast.succeeded).toBe(1);
    expect(late.fenced).toBe(1);
    expect((await deliveriesOf(stack, endpoint.endpointId))[0]).toMatchObject({ state: 'succeeded', attempts: 1 });
    // And an outcome written with a stale count changes nothing.
    const again = await recordOutcome(
      isolate(clock),
      { deliveryId: row!.id, organizationId: org.organizationId, endpointId: endpoint.endpointId, attempts: 0 },
      { kind: 'failed', status: 500, reason: 'status', sent: true },
      'stale',
    );
    expect(again).toEqual({ recorded: false, endpointDisabled: false });
    expect(await auditOf(org.organizationId, 'webhook.delivery_failed')).toEqual([]);
  });

  it('with Redis unreachable nothing is sent and nothing ends; once it is back the delivery goes, once', async () => {
    const clock = testClock();
    const org = await stack.seedOrganization();
    const hook = await receiver();
    const endpoint = await seedEndpoint(stack, org.organizationId, hook.url);
    await emitRoleChange(stack, org.organizationId, new Date(clock.now()));
    const [row] = await deliveriesOf(stack, endpoint.endpointId);
    const ref = { deliveryId: row!.id, organizationId: org.organizationId };
    stack.redisProxy.faults.set({ refuse: true });
    try {
      await expect(deliver(isolate(clock), [ref], { correlationId: 'redis-down' })).rejects.toThrow();
    } finally {
      stack.redisProxy.faults.clear();
    }
    expect(hook.received).toHaveLength(0);
    expect((await deliveriesOf(stack, endpoint.endpointId))[0]).toMatchObject({ state: 'pending', attempts: 0 });
    const report = await deliver(isolate(clock), [ref], { correlationId: 'redis-back' });
    expect(report.succeeded).toBe(1);
    expect(hook.received).toHaveLength(1);
  });
});

describe('signatures and where a delivery goes', () => {
  it("during a rotation's overlap both secrets sign, in one header, and each verifies alone", async () => {
    const clock = testClock();
    const org = await stack.seedOrganization();
    const hook = await receiver();
    const endpoint = await seedEndpoint(stack, org.organizationId, hook.url, { previousSecretUntil: new Date(clock.now() + DAY_MS) });
    await emitRoleChange(stack, org.organizationId, new Date(clock.now()));
    await runTask(isolate(clock));
    const [arrived] = hook.received;
    const signatures = arrived!.signature.split(' ');
    expect(signatures).toHaveLength(2);
    for (const [index, secret] of [endpoint.secret, endpoint.previousSecret!].entries()) {
      const headers = {
        'webhook-id': arrived!.webhookId,
        'webhook-timestamp': arrived!.timestamp,
        'webhook-signature': signatures[index]!,
      };
      expect(() => new Webhook(secret).verify(arrived!.body, headers, { jsonParse: false })).not.toThrow();
      const both = { ...headers, 'webhook-signature': arrived!.signature };
      expect(() => new Webhook(secret).verify(arrived!.body, both, { jsonParse: false })).not.toThrow();
    }
    // After the overlap, the new secret alone.
    await emitRoleChange(stack, org.organizationId, new Date(clock.now()));
    clock.set(clock.now() + DAY_MS + 1);
    await runTask(isolate(clock));
    expect(hook.received[1]!.signature.split(' ')).toHaveLength(1);
  });

  it('does not follow a redirect: a 3xx is a failed attempt, and the place it points to hears nothing', async () => {
    const clock = testClock();
    const org = await stack.seedOrganization();
    const elsewhere = await receiver();
    const hook = await receiver();
    hook.answer({ status: 307, location: elsewhere.url });
    const endpoint = await seedEndpoint(stack, org.organizationId, hook.url);
    await emitRoleChange(stack, org.organizationId, new Date(clock.now()));
    await runTask(isolate(clock));
    expect(hook.received).toHaveLength(1);
    expect(elsewhere.received).toHaveLength(0);
    expect((await deliveriesOf(stack, endpoint.endpointId))[0]).toMatchObject({
      state: 'pending',
      attempts: 1,
      last_status: 307,
      last_error: 'redirect',
    });
  });

  it('checks the URL again before each send: an endpoint row now naming a metadata host is sent nothing', async () => {
    const clock = testClock();
    const org = await stack.seedOrganization();
    const hook = await receiver();
    const endpoint = await seedEndpoint(stack, org.organizationId, hook.url);
    // Edited behind the routes' back: the policy refuses the name itself, before any lookup or connection.
    await stack.db.query("UPDATE webhook_endpoints SET url = 'http://metadata.google.internal/hooks' WHERE id = $1", [endpoint.endpointId]);
    await emitRoleChange(stack, org.organizationId, new Date(clock.now()));
    await runTask(isolate(clock));
    expect(hook.received).toHaveLength(0);
    expect((await deliveriesOf(stack, endpoint.endpointId))[0]).toMatchObject({
      state: 'pending',
      attempts: 1,
      last_status: null,
      last_error: 'url-forbidden',
    });
  });

  it("ends a deleted organisation's pending delivery unsent, as a disabled endpoint's", async () => {
    const clock = testClock();
    const org = await stack.seedOrganization();
    const hook = await receiver();
    const endpoint = await seedEndpoint(stack, org.organizationId, hook.url);
    await emitRoleChange(stack, org.organizationId, new Date(clock.now()));
    expect((await deliveriesOf(stack, endpoint.endpointId))[0]).toMatchObject({ state: 'pending', attempts: 0 });
    await stack.db.query("UPDATE organizations SET state = 'deleted' WHERE id = $1", [org.organizationId]);
    await runTask(isolate(clock));
    expect(hook.received).toHaveLength(0);
    expect((await deliveriesOf(stack, endpoint.endpointId))[0]).toMatchObject({
      state: 'failed',
      last_status: null,
      last_error: 'endpoint-disabled',
    });
  });

  it('sends nothing more once POST /ops/tenants/{orgId}/delete commits: the pending delivery ends unsent, a former member’s later event is none', async () => {
    const clock = testClock();
    const org = await stack.seedOrganization();
    const member = await memberFixtures(stack).addMember(org.organizationId, 'Viewer');
    const hook = await receiver();
    const endpoint = await seedEndpoint(stack, org.organizationId, hook.url);
    await stack.db.query("UPDATE webhook_endpoints SET events = array_append(events, 'user.mfa_enrolled') WHERE id = $1", [
      endpoint.endpointId,
    ]);
    await emitRoleChange(stack, org.organizationId, new Date(clock.now()));
    const deleted = await stack.request('POST', `/ops/tenants/${org.organizationId}/delete`, {
      headers: { authorization: `Bearer ${operator.secret}` },
      body: { reason: 'contract ended' },
    });
    expect(deleted.status).toBe(200);
    // The member keeps their account (and, for the record, their role row): an account-wide event of theirs reaches no
    // deleted organisation.
    await stack.db.query(
      `INSERT INTO audit_events (id, occurred_at, actor_user_id, organization_id, target_id, action, correlation_id, details)
       VALUES ($1, $2, $3, NULL, $3, 'mfa.confirmed', 'webhook-delivery-test', '{}')`,
      [crypto.randomUUID(), new Date(clock.now()).toISOString(), member.userId],
    );
    await runTask(isolate(clock));
    expect(hook.received).toHaveLength(0);
    expect((await deliveriesOf(stack, endpoint.endpointId)).map(({ state, last_error }) => ({ state, last_error }))).toEqual([
      { state: 'failed', last_error: 'endpoint-disabled' },
    ]);
  });

  it('keeps the secrets, the payload, the URL and the answer out of every log line and of the delivery row', async () => {
    const clock = testClock();
    const org = await stack.seedOrganization();
    const hook = await receiver();
    const canary = `canary-${crypto.randomUUID()}`;
    hook.answer({ status: 500 });
    const endpoint = await seedEndpoint(stack, org.organizationId, `${hook.url}?token=${canary}-url`, {
      previousSecretUntil: new Date(clock.now() + DAY_MS),
    });
    await emitRoleChange(stack, org.organizationId, new Date(clock.now()), { fromRole: `${canary}-payload`, toRole: 'Viewer' });
    await runTask(isolate(clock));
    expect(hook.received).toHaveLength(1);
    expect(hook.received[0]!.body).toContain(`${canary}-payload`);
    const logged = [...lines, ...stack.logs].join('\n');
    expect(logged).toContain('webhook_delivery');
    for (const secret of [canary, endpoint.secret, endpoint.previousSecret!, endpoint.secret.slice(6)])
      expect(logged).not.toContain(secret);
    const row = await stack.db.query('SELECT row_to_json(d)::text AS row FROM webhook_endpoint_deliveries d WHERE endpoint_id = $1', [
      endpoint.endpointId,
    ]);
    expect(String(row.rows[0].row)).not.toContain(canary);
  });
});
