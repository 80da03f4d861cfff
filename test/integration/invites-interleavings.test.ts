// Interleavings of accepts, cancels and lost replies, ordered by fast-check's scheduler, against real Redis and PostgreSQL:
// after reconciliation, a role row exists iff one invite.accepted row exists iff the outcome is accepted, a cancel
// has its one row, a live invite has no outcome, and no caller was told something the outcome contradicts.
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import type { Deps } from '../../lib/deps.ts';
import { DatabaseUnavailableError } from '../../lib/pg/unavailable.ts';
import type { RedisStore } from '../../lib/redis/index.ts';
import { invites } from '../../lib/runtime/invites/index.ts';
import { LIB_SCRIPTS } from '../support/lib-scripts.ts';
import { newInvitee, startStack, type TestStack } from '../support/stack.ts';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
  for (const script of LIB_SCRIPTS) await stack.redis.script('LOAD', script.source);
});
afterAll(async () => stack?.close());

type RedisFault = 'none' | 'lands-after-deadline';
type PgFault = 'none' | 'refused' | 'reply-lost-after-commit';
interface Op {
  kind: 'accept' | 'accept-other-account' | 'cancel';
  redis: RedisFault;
  pg: PgFault;
}

const opArb: fc.Arbitrary<Op> = fc.record({
  kind: fc.constantFrom('accept', 'accept', 'accept-other-account', 'cancel'),
  redis: fc.constantFrom<RedisFault>('none', 'none', 'lands-after-deadline'),
  pg: fc.constantFrom<PgFault>('none', 'none', 'refused', 'reply-lost-after-commit'),
});

/**
 * The real stores, with every call started when the scheduler says, and this operation's first effectful script
 * and first transaction failing the way the op asks: the script runs but its reply is lost; the transaction is
 * refused before it runs, or commits and loses its reply. (The same faults at the proxies are tested one by one
 * in invites-outcomes.test.ts.)
 */
function scheduledDeps(s: fc.Scheduler, base: Deps, label: string, op: Op): Deps {
  const gate = (what: string) => s.schedule(Promise.resolve(), `${label} ${what}`);
  let redisFault = op.redis;
  let pgFault = op.pg;
  const client = <K extends keyof RedisStore>(kind: K): RedisStore[K] =>
    new Proxy(base.redis[kind], {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if ((prop !== 'evalsha' && prop !== 'eval') || typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          await gate(`redis ${String(kind)}`);
          const result = (await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args)) as unknown;
          if (kind === 'atMostOnce' && redisFault === 'lands-after-deadline') {
            redisFault = 'none';
            throw new Error('deadline passed; the script ran');
          }
          return result;
        };
      },
    });
  return {
    ...base,
    redis: { check: base.redis.check, retrySafe: client('retrySafe'), atMostOnce: client('atMostOnce') },
    db: {
      async query(text, params) {
        await gate('pg read');
        return base.db.query(text, params);
      },
      async transaction(statements) {
        await gate('pg transaction');
        const fault = pgFault;
        pgFault = 'none';
        if (fault === 'refused') throw new DatabaseUnavailableError('test: refused');
        const rows = await base.db.transaction(statements);
        if (fault === 'reply-lost-after-commit') throw new DatabaseUnavailableError('test: reply lost after COMMIT');
        return rows;
      },
    },
  } as Deps;
}

it('keeps outcome, grant, audit and answers in step under any interleaving of accepts, cancels and lost replies', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.scheduler(),
      fc.array(opArb, { minLength: 2, maxLength: 4 }),
      fc.boolean(),
      async (s, ops, personHoldsOtherRole) => {
        const org = await stack.seedOrganization();
        const person = newInvitee();
        const other = newInvitee();
        if (personHoldsOtherRole) {
          await stack.db.query('INSERT INTO users (id, email) VALUES ($1, $2)', [person.userId, person.email]);
          await stack.db.query(
            "INSERT INTO role_assignments (id, user_id, organization_id, location_id, role_code) VALUES ($1, $2, $3, NULL, 'Accountant')",
            [uuidv7(), person.userId, org.organizationId],
          );
        }
        const created = await invites.create(stack.deps, {
          organizationId: org.organizationId,
          locationId: null,
          email: person.email,
          roleCode: 'Viewer',
          createdByUserId: org.adminId,
          correlationId: 'interleavings-create',
        });
        if (!created.ok) throw new Error(`fixture invite refused: ${created.reason}`);
        const { invite, token } = created;

        const runs = ops.map(async (op, i) => {
          const deps = scheduledDeps(s, stack.deps, `#${i} ${op.kind}`, op);
          const correlationId = `interleavings-${i}`;
          try {
            if (op.kind === 'cancel') {
              const input = { organizationId: org.organizationId, inviteId: invite.inviteId, actorUserId: org.adminId, correlationId };
              return { op, who: org.adminId, result: await invites.cancel(deps, input) };
            }
            const who = op.kind === 'accept' ? person.userId : other.userId;
            return { op, who, result: await invites.accept(deps, { token, userId: who, verifiedEmail: person.email, correlationId }) };
          } catch (error) {
            return { op, who: '', error };
          }
        });
        const answers = await s.waitFor(Promise.all(runs));
        // Twice: the first finishes what lost replies left, the second proves nothing is left.
        await invites.reconcile(stack.deps, { organizationId: org.organizationId, graceSeconds: 0 });
        const second = await invites.reconcile(stack.deps, { organizationId: org.organizationId, graceSeconds: 0 });
        expect(second).toMatchObject({ finished: 0, pending: 0 });

        const rows = async (sql: string) => (await stack.db.query(sql, [invite.inviteId, org.organizationId])).rows;
        const outcomes = await rows('SELECT outcome, actor_user_id FROM invite_outcomes WHERE invite_id = $1 AND organization_id = $2');
        const audits = await rows(
          "SELECT action FROM audit_events WHERE target_id = $1 AND organization_id = $2 AND action <> 'invite.created'",
        );
        const granted = await rows(
          'SELECT user_id FROM role_assignments WHERE organization_id = $2 AND granted_by_user_id IS NOT NULL AND $1::uuid IS NOT NULL',
        );
        const live = (await stack.redis.exists(stack.deps.keys.inviteObject(org.organizationId, invite.inviteId))) === 1;
        const outcome = outcomes[0] as { outcome: string; actor_user_id: string } | undefined;

        expect(outcomes.length).toBeLessThanOrEqual(1);
        expect(live).toBe(outcome === undefined);
        const accepted = outcome?.outcome === 'accepted';
        const cancelled = outcome?.outcome === 'cancelled';
        expect(audits.filter((r) => r.action === 'invite.accepted')).toHaveLength(accepted ? 1 : 0);
        expect(audits.filter((r) => r.action === 'invite.cancelled')).toHaveLength(cancelled ? 1 : 0);
        expect(granted.map((r) => r.user_id)).toEqual(accepted ? [outcome.actor_user_id] : []);
        for (const answer of answers) {
          if (!('result' in answer) || answer.result === undefined) continue;
          if (answer.op.kind === 'cancel') {
            if (answer.result.ok) expect(cancelled).toBe(true);
          } else if (answer.result.ok) {
            expect(accepted && outcome.actor_user_id === answer.who).toBe(true);
          } else if (answer.result.reason === 'role-conflict') {
            expect(personHoldsOtherRole && answer.who === person.userId).toBe(true);
          }
        }
      },
    ),
    { numRuns: 60 },
  );
});
