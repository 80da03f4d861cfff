// syrve.stores and syrve.test: the cheap upstream call through the runtime session, as data and as a connection check.
import type { SyrveStore } from '../../upstream/syrve/index.ts';
import type { Deps } from '../../deps.ts';
import type { SyrveConnection } from './connection.ts';
import { CALL_TIMEOUT_MS } from './policy.ts';
import { callWithSession, type SessionCallOutcome } from './with-session.ts';

export type UseOutcome<T> = SessionCallOutcome<T> | { ok: false; reason: 'disabled' };

export async function listStores(deps: Deps, connection: SyrveConnection, correlationId: string): Promise<UseOutcome<SyrveStore[]>> {
  if (!connection.enabled) return { ok: false, reason: 'disabled' };
  return callWithSession(deps, connection, correlationId, (sessionId) =>
    deps.syrve.listStores({ baseUrl: connection.baseUrl }, sessionId, { timeoutMs: CALL_TIMEOUT_MS }),
  );
}

export interface TestResult {
  test: 'ok' | 'failed';
  /** How the session was found; 'none' when the test failed before a call could be made. */
  session: 'cached' | 'acquired' | 'none';
  /** Why it failed, in the words of UseOutcome (never an upstream body). */
  reason?: string;
}

export async function testConnection(deps: Deps, connection: SyrveConnection, correlationId: string): Promise<TestResult> {
  const outcome = await listStores(deps, connection, correlationId);
  if (outcome.ok) return { test: 'ok', session: outcome.session };
  return { test: 'failed', session: 'none', reason: outcome.reason };
}
