// The one error type of the HTTP surface: a status and an error code (docs/api.md#errors), as `{ error: { code, message } }`.
export type ErrorCode =
  | 'VALIDATION_FAILED'
  | 'UNAUTHENTICATED'
  | 'TOKEN_REVOKED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'INVITE_INVALID'
  | 'ROLE_CONFLICT'
  | 'INVITE_LIMIT_REACHED'
  | 'RATE_LIMITED'
  | 'REVOCATION_UNAVAILABLE'
  | 'STORE_UNAVAILABLE'
  | 'INTERNAL_ERROR';

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 410 | 429 | 500 | 503;

export class AppError extends Error {
  constructor(
    readonly status: ErrorStatus,
    readonly code: ErrorCode,
    message: string,
    /** Response headers that belong to the answer (`retry-after` on 429). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const validationFailed = (message: string) => new AppError(400, 'VALIDATION_FAILED', message);
export const unauthenticated = (message = 'a valid bearer token is required') => new AppError(401, 'UNAUTHENTICATED', message);
export const tokenRevoked = () => new AppError(401, 'TOKEN_REVOKED', 'this token or its session has been revoked');
export const forbidden = (message = 'no role for this tenant or action') => new AppError(403, 'FORBIDDEN', message);
export const notFound = (message = 'no such active object in this tenant') => new AppError(404, 'NOT_FOUND', message);
export const roleConflict = (heldRole: string) =>
  new AppError(409, 'ROLE_CONFLICT', `the account already holds the role ${heldRole} at this scope; the invitation stays active`);
export const inviteInvalid = () => new AppError(410, 'INVITE_INVALID', 'this invitation is unknown, expired, cancelled or already used');
export const inviteLimitReached = (max: number) =>
  new AppError(
    409,
    'INVITE_LIMIT_REACHED',
    `this organisation already has ${max} active invitations; cancel some or wait for them to expire`,
  );
export const rateLimited = (retryAfterSeconds: number) =>
  new AppError(429, 'RATE_LIMITED', 'too many attempts; try again after the time in the retry-after header', {
    'retry-after': String(retryAfterSeconds),
  });
export const revocationUnavailable = () =>
  new AppError(503, 'REVOCATION_UNAVAILABLE', 'the revocation store is unreachable; try again shortly');
export const storeUnavailable = (message = 'a store this operation needs is unreachable; try again shortly') =>
  new AppError(503, 'STORE_UNAVAILABLE', message);

export interface ErrorBody {
  error: { code: ErrorCode; message: string };
}

export function errorBody(error: AppError): ErrorBody {
  return { error: { code: error.code, message: error.message } };
}
