// Tells "PostgreSQL could not be reached" (503) apart from an error PostgreSQL itself reported (a bug or a constraint).
import { PG_CALL_POLICY, type PgCallKind } from './call-policy.ts';

export class DatabaseUnavailableError extends Error {
  constructor(
    readonly operation: string,
    options?: { cause?: unknown },
  ) {
    super(`database call failed: ${operation}`, options);
    this.name = 'DatabaseUnavailableError';
  }
}

/** SQLSTATE of an error PostgreSQL answered with, if any. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/**
 * Runs one database call of `kind` within its deadline (lib/pg/call-policy.ts): `call` gets the signal to hand to the
 * driver, which aborts the request; the deadline holds even for a call that cannot take one (a WebSocket Pool query).
 * A failure without a SQLSTATE (network, deadline, proxy refused) becomes DatabaseUnavailableError.
 */
export async function dbCall<T>(kind: PgCallKind, operation: string, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const signal = AbortSignal.timeout(PG_CALL_POLICY[kind].timeoutMs);
  let stopWatching = () => {};
  const deadline = new Promise<never>((_, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    stopWatching = () => signal.removeEventListener('abort', onAbort);
  });
  try {
    return await Promise.race([call(signal), deadline]);
  } catch (error) {
    // 08xxx connection exceptions and 57P0x shutdowns are unavailability too.
    const state = sqlState(error);
    if (state === undefined || state.startsWith('08') || state.startsWith('57P')) {
      throw new DatabaseUnavailableError(operation, { cause: error });
    }
    throw error;
  } finally {
    stopWatching();
  }
}
