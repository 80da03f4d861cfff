// The failure of a Redis call, as one of two types, so callers choose fail-closed or fail-open without reading client
// internals: the store could not serve (RedisUnavailableError), or it answered an error reply that is our defect
// (RedisDefectError; lib/redis/reply-class.ts holds the one list that tells them apart).
import { errorReplyOf, replyClass, replyCode } from './reply-class.ts';

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

/**
 * An error reply that is a defect (a script error, WRONGTYPE, a syntax error): answered 500 with an ERROR log, and never
 * read as "unavailable", so no fail-open path lets a request through on it.
 */
export class RedisDefectError extends Error {
  /** The reply's first word (`WRONGTYPE`, `ERR`); the rest of a reply can quote keys or values. */
  readonly replyCode: string;

  constructor(
    readonly operation: string,
    reply: string,
    options?: { cause?: unknown },
  ) {
    const code = replyCode(reply);
    super(`redis answered ${code} to ${operation}`, options);
    this.name = 'RedisDefectError';
    this.replyCode = code;
  }
}

/** The error for `reply`, an error reply of `operation`, by its class. */
export function redisReplyError(operation: string, reply: string, options?: { cause?: unknown }): RedisUnavailableError | RedisDefectError {
  return replyClass(reply) === 'defect' ? new RedisDefectError(operation, reply, options) : new RedisUnavailableError(operation, options);
}

/**
 * Runs one Redis call: a store that does not answer (network, deadline) or answers a reply that means it cannot serve
 * now throws RedisUnavailableError; an error reply that is a defect throws RedisDefectError.
 */
export async function redisCall<T>(operation: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const reply = errorReplyOf(error);
    throw reply === undefined
      ? new RedisUnavailableError(operation, { cause: error })
      : redisReplyError(operation, reply, { cause: error });
  }
}

/** For a fail-open path's catch: a defect goes on up (to a 500), never counts as the store being away. */
export function rethrowDefect(error: unknown): void {
  if (error instanceof RedisDefectError) throw error;
}
