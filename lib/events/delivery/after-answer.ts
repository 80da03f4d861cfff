// Sends the deliveries a request's own change wrote, after its answer (Workers' waitUntil, Node), not on its path.
import { errorKind } from '../../log/logger.ts';
import type { Deps } from '../../deps.ts';
import { takeNewDeliveries } from '../../pg/new-deliveries.ts';

/** No send starts later than this after the answer: inside Workers' 30 s for work after a response, with room. */
const AFTER_ANSWER_MS = 20_000;

/**
 * Called once the handler has answered. Without a way to work after the answer (Lambda) nothing is sent here: the
 * deliveries are due, and the scheduled function sends them on its next run, rather than the admin's answer waiting
 * on a receiver. The sending code is imported on first use, so a cold start that writes no delivery never evaluates it.
 */
export function deliverAfterAnswer(deps: Deps, defer: ((work: Promise<unknown>) => void) | undefined, correlationId: string): void {
  const fresh = takeNewDeliveries(deps.db);
  if (fresh.length === 0 || defer === undefined) return;
  defer(
    import('./deliver.ts')
      .then(({ deliver }) => deliver(deps, fresh, { correlationId, deadlineAtMs: deps.clock.now() + AFTER_ANSWER_MS }))
      .catch((error: unknown) => {
        // They stay pending and due: the scheduled function sends them (docs/design/event-delivery.md).
        deps.logger.warn('webhook_delivery_deferred', { deliveries: fresh.length, errorKind: errorKind(error), correlationId });
      }),
  );
}
