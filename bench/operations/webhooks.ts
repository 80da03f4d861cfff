// Deliveries per second the scheduled function's webhook-delivery task sustains, to a receiver on loopback, beside the
// same number of bare POSTs to that receiver (the baseline: what the loopback and the receiver cost alone).
import { uuidv7 } from 'uuidv7';
import { endpointSecretBinding, generateEndpointSecret, sealEndpointSecret } from '../../lib/events/endpoint-secret.ts';
import { webhookDeliveryTask } from '../../lib/events/delivery/delivery-task.ts';
import { createBudget } from '../../lib/runtime/cron-task/budget.ts';
import { startWebhookReceiver } from '../../local/fakes/index.ts';
import type { FigureBench, FigureResult } from '../operation.ts';
import { startBenchStack, type BenchStack } from '../stack.ts';

const ORGANIZATIONS = 50;
const EVENTS_PER_ORGANIZATION = 40;
const TOTAL = ORGANIZATIONS * EVENTS_PER_ORGANIZATION;

/** An endpoint per organisation pointed at the receiver, then its events: the audit trigger writes one delivery each. */
async function seed(stack: BenchStack, url: string): Promise<string[]> {
  const organizations: string[] = [];
  for (let i = 0; i < ORGANIZATIONS; i++) {
    const org = await stack.seedOrganization();
    const endpointId = uuidv7();
    const sealed = await sealEndpointSecret(
      stack.config.secretsKeys,
      generateEndpointSecret(),
      endpointSecretBinding(org.organizationId, endpointId, 1),
    );
    await stack.db.query(
      `INSERT INTO webhook_endpoints (id, organization_id, url, events, secret_key_id, secret_ciphertext, secret_version, created_by, created_at, updated_at)
       VALUES ($1, $2, $3, ARRAY['member.role_changed'], $4, $5, 1, $6, now(), now())`,
      [endpointId, org.organizationId, url, sealed.keyId, sealed.ciphertext, org.adminId],
    );
    await stack.db.query(
      `INSERT INTO audit_events (id, occurred_at, organization_id, target_id, action, correlation_id, details)
       SELECT gen_random_uuid(), now(), $1, $2, 'member.role_changed', 'bench', '{"toRole":"Viewer"}' FROM generate_series(1, $3)`,
      [org.organizationId, org.adminId, EVENTS_PER_ORGANIZATION],
    );
    organizations.push(org.organizationId);
  }
  return organizations;
}

export const webhookDeliveryBench: FigureBench = {
  name: 'webhooks.delivery',
  describe:
    `the webhook-delivery task at the configured budget, run after run, over ${TOTAL} due deliveries (${ORGANIZATIONS} organisations, ` +
    `${EVENTS_PER_ORGANIZATION} each) to a receiver on 127.0.0.1 answering 204: deliveries a second of task time; .baseline: ` +
    `the same number of bare POSTs of the same body to the receiver, 8 at a time, a second`,
  async measure(teardown): Promise<FigureResult[]> {
    // A stack of its own: the task sends every due delivery of its database.
    const stack = await startBenchStack(teardown, { ...process.env, DATABASE_URL: process.env.DATABASE_URL });
    const receiver = await startWebhookReceiver();
    teardown.add('webhook receiver', () => receiver.close());
    await seed(stack, receiver.url);

    const limits = { commands: stack.config.cron.taskCommandBudget, timeMs: stack.config.cron.taskTimeBudgetMs };
    const runs: Array<{ ms: number; sent: number }> = [];
    let done = false;
    while (!done && runs.length < 1_000) {
      const started = performance.now();
      const report = await webhookDeliveryTask.run(stack.deps, createBudget(limits, stack.deps.clock), { correlationId: 'bench' });
      runs.push({ ms: performance.now() - started, sent: report.removed });
      done = report.done && report.visited === 0;
    }
    const sent = runs.reduce((n, run) => n + run.sent, 0);
    if (sent !== TOTAL || receiver.received.length !== TOTAL)
      throw new Error(`webhooks.delivery: ${sent} ended, ${receiver.received.length} received`);
    const taskMs = runs.reduce((n, run) => n + run.ms, 0);

    // The baseline: the same body posted bare, 8 at a time like the engine, no lease, no read, no signature, no outcome.
    const body = receiver.received[0]!.body;
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < TOTAL) {
          next += 1;
          const response = await fetch(receiver.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
          await response.body?.cancel();
        }
      }),
    );
    const bareMs = performance.now() - started;
    return [
      {
        name: 'webhooks.delivery',
        figures: {
          deliveries: TOTAL,
          runs: runs.length,
          perRunMax: Math.max(...runs.map((run) => run.sent)),
          deliveriesPerSecond: Math.round((TOTAL / taskMs) * 1000),
          msPerRun: Math.round(taskMs / runs.length),
        },
      },
      { name: 'webhooks.delivery.baseline', figures: { postsPerSecond: Math.round((TOTAL / bareMs) * 1000) } },
    ];
  },
};
