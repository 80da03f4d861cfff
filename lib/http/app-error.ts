// The one error type of the HTTP surface, `{ error: { code, message } }`, and one factory per code of lib/http/error-catalog.ts.
import { ERROR_CATALOG, ERROR_CODES, type ErrorCode, type ErrorStatus } from './error-catalog.ts';

export class AppError extends Error {
  /** Always the catalog's status for `code`, so no answer can pair a code with another status. */
  readonly status: ErrorStatus;

  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Response headers that belong to the answer (`retry-after` on 429). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERROR_CATALOG[code].status;
  }
}

type Entry<C extends ErrorCode> = (typeof ERROR_CATALOG)[C];

/** What the factory of `code` takes: the seconds of its retry-after, or what its message builder takes. */
type ErrorArgs<C extends ErrorCode> =
  Entry<C> extends { retryAfter: true } ? [retryAfterSeconds: number] : Entry<C>['message'] extends (...args: infer A) => string ? A : [];

type Factories = { readonly [C in ErrorCode]: (...args: ErrorArgs<C>) => AppError };

function factory(code: ErrorCode): (...args: unknown[]) => AppError {
  const entry: { message: string | ((...args: never[]) => string); retryAfter?: true } = ERROR_CATALOG[code];
  const { message } = entry;
  if (entry.retryAfter === true) {
    return (seconds) => new AppError(code, message as string, { 'retry-after': String(seconds) });
  }
  return typeof message === 'string' ? () => new AppError(code, message) : (...args) => new AppError(code, message(...(args as never[])));
}

/** `throw errors.NOT_FOUND('no such export in this organisation')`: the status and the default message come from the catalog. */
export const errors = Object.fromEntries(ERROR_CODES.map((code) => [code, factory(code)])) as unknown as Factories;

export interface ErrorBody {
  error: { code: ErrorCode; message: string };
}

export function errorBody(error: AppError): ErrorBody {
  return { error: { code: error.code, message: error.message } };
}
