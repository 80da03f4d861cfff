// The failure of a Redis call, as one type, so callers choose fail-closed or fail-open without reading client internals.
export class RedisUnavailableError extends Error {
  constructor(
    readonly operation: string,
    options?: { cause?: unknown },
  ) {
    // The client's own message embeds the whole command (keys and values), so it is kept out of ours.
    super(`redis call failed: ${operation}`, options);
    this.name = 'RedisUnavailableError';
  }
}

/** Runs one Redis call; any throw (network, deadline, Redis error reply) becomes a RedisUnavailableError. */
export async function redisCall<T>(operation: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw new RedisUnavailableError(operation, { cause: error });
  }
}
