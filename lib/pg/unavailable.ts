// Tells "PostgreSQL could not be reached" (503) apart from an error PostgreSQL itself reported (a bug or a constraint).
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

/** Runs one database call; a failure without a SQLSTATE (network, timeout, proxy refused) becomes DatabaseUnavailableError. */
export async function dbCall<T>(operation: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    // 08xxx connection exceptions and 57P0x shutdowns are unavailability too.
    const state = sqlState(error);
    if (state === undefined || state.startsWith('08') || state.startsWith('57P')) {
      throw new DatabaseUnavailableError(operation, { cause: error });
    }
    throw error;
  }
}
