// Turns every thrown error into the error body of docs/api.md; unexpected ones are logged by kind and answered without detail.
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { AppError, errorBody, errors } from './app-error.ts';
import { RedisDefectError, RedisUnavailableError } from '../redis/index.ts';
import { DatabaseUnavailableError, sqlState } from '../pg/unavailable.ts';
import { errorKind } from '../log/logger.ts';
import { failureLevel } from './failure-level.ts';
import type { HonoEnv } from './hono-env.ts';
import { CORRELATION_HEADER } from './correlation.ts';

/** A store that did not answer is usually back within seconds (a restart, a failover, a suspended compute waking). */
export const RETRY_AFTER_UNAVAILABLE_SECONDS = 2;

export function handleError(error: Error, c: Context<HonoEnv>): Response {
  const known = toAppError(error);
  const correlationId = c.get('correlationId');
  if (correlationId !== undefined) c.header(CORRELATION_HEADER, correlationId);
  for (const [name, value] of Object.entries(known.headers)) c.header(name, value);
  // Every 503 says when to come back; the ones with their own figure (UPSTREAM_BUSY) set it above.
  if (known.status === 503 && known.headers['retry-after'] === undefined) c.header('retry-after', String(RETRY_AFTER_UNAVAILABLE_SECONDS));
  if (known.status >= 500) {
    // A 4xx is the caller's and goes unlogged here; a 5xx at the level its code deserves (lib/http/failure-level.ts).
    c.get('deps')?.logger[failureLevel(known.code)]('request_failed', {
      code: known.code,
      errorKind: errorKind(error),
      cause:
        error instanceof RedisUnavailableError || error instanceof RedisDefectError || error instanceof DatabaseUnavailableError
          ? error.operation
          : undefined,
      // A defect's reply code (WRONGTYPE, ERR): its 500 is INTERNAL_ERROR, never a store outage.
      replyCode: error instanceof RedisDefectError ? error.replyCode : undefined,
      sqlState: sqlState(error),
      method: c.req.method,
      route: c.req.routePath,
      correlationId,
    });
  }
  return c.json(errorBody(known), known.status);
}

function toAppError(error: Error): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof RedisUnavailableError || error instanceof DatabaseUnavailableError) return errors.STORE_UNAVAILABLE();
  // Hono's own 4xx (malformed JSON, wrong content type) are request problems; its message names no submitted value.
  if (error instanceof HTTPException && error.status >= 400 && error.status < 500) {
    return errors.VALIDATION_FAILED('the request body is not valid JSON of the expected type');
  }
  return errors.INTERNAL_ERROR();
}
