// Sends a set of due deliveries: each under its lease, read fresh, its URL checked again, signed, sent once, its outcome fenced.
import { errorKind } from '../../log/logger.ts';
import type { Deps } from '../../deps.ts';
import { checkEndpointUrl } from '../url-policy.ts';
import { signingSecrets } from './endpoint-secrets.ts';
import { releaseLease, takeLease, type Lease } from './lease.ts';
import { readAttempts, type AttemptRow } from './read-attempts.ts';
import { recordOutcome, type AttemptOutcome } from './record-outcome.ts';
import { nextAttemptAt } from './schedule.ts';
import { SEND_TIMEOUT_MS, sendDelivery } from './send.ts';
import { signDelivery, webhookIdOf } from './signature.ts';
import { sendableInThisEnv } from './test-env-guard.ts';

export interface DeliveryRef {
  deliveryId: string;
  organizationId: string;
}

export interface DeliverReport {
  /** Deliveries whose lease was another isolate's, or that were no longer pending and due once leased. */
  skipped: number;
  succeeded: number;
  retried: number;
  failed: number;
  /** Attempts made whose outcome was not written: the delivery had moved on meanwhile (the fence held). */
  fenced: number;
  /** Endpoints this run disabled for failing. */
  endpointsDisabled: number;
}

export interface DeliverContext {
  correlationId: string;
  /**
   * No send starts after this (the scheduled task's time budget), and none runs past it by more than the send's own
   * deadline allows: what is left stays pending and due, for the next run. Unset: SEND_TIMEOUT_MS per send.
   */
  deadlineAtMs?: number;
}

/** A send cut short by the deadline still gets this long: a receiver that answers at once is not failed for it. */
const MIN_SEND_MS = 1_000;

/** Sends at once, per call: enough to overlap slow receivers, few enough for one isolate's connections. */
const CONCURRENCY = 8;

/**
 * Takes every lease first (a Redis that cannot answer throws here, before anything is sent: sending pauses, nothing
 * ends), then reads what is still pending and due, and sends those, CONCURRENCY at a time. Each lease is given back once
 * the outcome is written. Ordering between deliveries is not kept.
 */
export async function deliver(deps: Deps, refs: readonly DeliveryRef[], context: DeliverContext): Promise<DeliverReport> {
  const report: DeliverReport = { skipped: 0, succeeded: 0, retried: 0, failed: 0, fenced: 0, endpointsDisabled: 0 };
  if (refs.length === 0) return report;
  const taken = await Promise.allSettled(refs.map((ref) => takeLease(deps, ref.organizationId, ref.deliveryId)));
  const leases = new Map<string, Lease>();
  for (const result of taken)
    if (result.status === 'fulfilled' && result.value !== undefined) leases.set(result.value.deliveryId, result.value);
  const refused = taken.find((result) => result.status === 'rejected');
  if (refused !== undefined) {
    await releaseAll(deps, [...leases.values()]);
    throw refused.reason;
  }
  report.skipped += refs.length - leases.size;
  let rows: AttemptRow[];
  try {
    rows = await readAttempts(deps, [...leases.keys()]);
  } catch (error) {
    await releaseAll(deps, [...leases.values()]);
    throw error;
  }
  const found = new Set(rows.map((row) => row.delivery_id));
  const stale = [...leases.values()].filter((lease) => !found.has(lease.deliveryId));
  report.skipped += stale.length;
  await releaseAll(deps, stale);

  const queue = [...rows];
  const worker = async () => {
    for (let row = queue.shift(); row !== undefined; row = queue.shift()) {
      const lease = leases.get(row.delivery_id);
      if (lease === undefined) continue;
      try {
        const msLeft = context.deadlineAtMs === undefined ? SEND_TIMEOUT_MS : context.deadlineAtMs - deps.clock.now();
        if (msLeft <= 0) report.skipped += 1;
        else await attemptOne(deps, row, report, context.correlationId, Math.max(MIN_SEND_MS, Math.min(SEND_TIMEOUT_MS, msLeft)));
      } finally {
        await releaseLease(deps, lease).catch(() => undefined);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, rows.length) }, worker));
  return report;
}

async function attemptOne(deps: Deps, row: AttemptRow, report: DeliverReport, correlationId: string, timeoutMs: number): Promise<void> {
  const outcome = await attempt(deps, row, timeoutMs);
  const recorded = await recordOutcome(
    deps,
    { deliveryId: row.delivery_id, organizationId: row.organization_id, endpointId: row.endpoint_id, attempts: row.attempts },
    outcome,
    correlationId,
  );
  if (!recorded.recorded) report.fenced += 1;
  else if (outcome.kind === 'succeeded') report.succeeded += 1;
  else if (outcome.kind === 'retry') report.retried += 1;
  else report.failed += 1;
  if (recorded.endpointDisabled) report.endpointsDisabled += 1;
  // Ids, the status and our own short reason only: never the URL (it may carry a receiver's token), the body or an answer.
  deps.logger.info('webhook_delivery', {
    deliveryId: row.delivery_id,
    endpointId: row.endpoint_id,
    organizationId: row.organization_id,
    attempt: row.attempts + 1,
    outcome: recorded.recorded ? outcome.kind : 'fenced',
    status: outcome.status,
    ...(outcome.kind === 'succeeded' ? {} : { reason: outcome.reason }),
    ...(recorded.endpointDisabled ? { endpointDisabled: true } : {}),
    correlationId,
  });
}

/** One attempt's outcome; nothing is sent to a disabled endpoint or to a URL the policy now refuses. */
async function attempt(deps: Deps, row: AttemptRow, timeoutMs: number): Promise<AttemptOutcome> {
  if (row.endpoint_state !== 'enabled') return { kind: 'failed', status: null, reason: 'endpoint-disabled', sent: false };
  const failure = (status: number | null, reason: string): AttemptOutcome => {
    const next = nextAttemptAt(row.schedule_started_at.getTime(), deps.clock.now());
    return next === undefined ? { kind: 'failed', status, reason, sent: true } : { kind: 'retry', status, reason, nextAttemptAtMs: next };
  };
  // Again before every send: a name that resolved to a public address when the endpoint was saved may not now.
  const checked = await checkEndpointUrl(row.url, { appEnv: deps.config.appEnv, resolveHost: deps.resolveHost });
  if (!checked.ok || !sendableInThisEnv(checked.url, deps.config.appEnv)) return failure(null, 'url-forbidden');
  let secrets: string[];
  try {
    secrets = await signingSecrets(deps, row);
  } catch (error) {
    deps.logger.error('webhook_secret_unavailable', { endpointId: row.endpoint_id, errorKind: errorKind(error) });
    return failure(null, 'secret-unavailable');
  }
  const headers = signDelivery({ secrets, webhookId: webhookIdOf(row.delivery_id), timestampMs: deps.clock.now(), body: row.body });
  const sent = await sendDelivery({ url: checked.url, headers, body: row.body, timeoutMs });
  return sent.ok ? { kind: 'succeeded', status: sent.status } : failure(sent.status, sent.reason);
}

async function releaseAll(deps: Deps, leases: readonly Lease[]): Promise<void> {
  await Promise.all(leases.map((lease) => releaseLease(deps, lease).catch(() => undefined)));
}
