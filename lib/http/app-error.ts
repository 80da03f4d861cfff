// The one error type of the HTTP surface: a status and an error code (docs/api.md#errors), as `{ error: { code, message } }`.
export type ErrorCode =
  | 'VALIDATION_FAILED'
  | 'UNAUTHENTICATED'
  | 'TOKEN_REVOKED'
  | 'INVALID_CREDENTIALS'
  | 'REFRESH_INVALID'
  | 'HANDOFF_INVALID'
  | 'RESET_INVALID'
  | 'MFA_INVALID'
  | 'MFA_CODE_INVALID'
  | 'MFA_ALREADY_ENROLLED'
  | 'OIDC_FAILED'
  | 'FORBIDDEN'
  | 'TENANT_SUSPENDED'
  | 'CSRF_REFUSED'
  | 'NOT_FOUND'
  | 'INVITE_INVALID'
  | 'ROLE_CONFLICT'
  | 'INVITE_LIMIT_REACHED'
  | 'SLUG_TAKEN'
  | 'DOMAIN_TAKEN'
  | 'LAST_ADMIN'
  | 'RATE_LIMITED'
  | 'CONNECTION_EXISTS'
  | 'CONNECTION_DISABLED'
  | 'CONNECTION_CHANGED'
  | 'WEBHOOK_SIGNATURE_INVALID'
  | 'WEBHOOK_REPLAYED'
  | 'ROTATION_SUPERSEDED'
  | 'EXPORT_LIMIT_REACHED'
  | 'EXPORT_NOT_READY'
  | 'EXPORT_FINISHED'
  | 'UPSTREAM_FAILED'
  | 'UPSTREAM_BUSY'
  | 'NOT_CONFIGURED'
  | 'REVOCATION_UNAVAILABLE'
  | 'STORE_UNAVAILABLE'
  | 'INTERNAL_ERROR';

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 410 | 429 | 500 | 502 | 503;

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
export const invalidCredentials = () => new AppError(401, 'INVALID_CREDENTIALS', 'the email or password is wrong');
export const refreshInvalid = () =>
  new AppError(401, 'REFRESH_INVALID', 'this refresh token is unknown, already used, or its session has ended; sign in again');
export const handoffInvalid = () => new AppError(401, 'HANDOFF_INVALID', 'this handoff code is unknown, used, expired or for another app');
export const resetInvalid = () => new AppError(410, 'RESET_INVALID', 'this reset link is unknown, used or expired; ask for a new one');
export const mfaInvalid = () =>
  new AppError(
    401,
    'MFA_INVALID',
    'this challenge is unknown, expired or used up, or the code is wrong or already used; sign in again if it persists',
  );
export const mfaCodeInvalid = () =>
  new AppError(
    400,
    'MFA_CODE_INVALID',
    "the code does not match the pending factor or was already used; check the device's clock and try the next code",
  );
export const mfaAlreadyEnrolled = () => new AppError(409, 'MFA_ALREADY_ENROLLED', 'this account already has a confirmed TOTP factor');
/** One answer for every OIDC callback that does not sign in; the reason is logged as a word (lib/auth/oidc/failure-reason.ts). */
export const oidcFailed = () =>
  new AppError(401, 'OIDC_FAILED', 'the sign-in through the identity provider could not be completed; start it again');
export const forbidden = (message = 'no role for this tenant or action') => new AppError(403, 'FORBIDDEN', message);
/** The organisation is suspended: refused to its members on every /orgs route, at sign-in and at refresh (docs/design/tenants.md#suspension); nothing was spent or ended, so the same call works once it is reactivated. */
export const tenantSuspended = () =>
  new AppError(403, 'TENANT_SUSPENDED', 'this organisation is suspended; an operator must reactivate it first');
/** The console refused a state-changing request without its CSRF defence (lib/console/csrf.ts); `reason` names what was missing. */
export const csrfRefused = (reason: string) =>
  new AppError(403, 'CSRF_REFUSED', `refused: ${reason}; state-changing console requests must come from the console page itself`);
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
export const slugTaken = () => new AppError(409, 'SLUG_TAKEN', 'another organisation already has this slug');
export const domainTaken = () =>
  new AppError(409, 'DOMAIN_TAKEN', 'one of these domains belongs to another organisation; nothing was changed');
export const lastAdmin = () =>
  new AppError(
    409,
    'LAST_ADMIN',
    "this is the organisation's only organisation-wide OrganizationAdmin; make another member one first; nothing was changed",
  );
export const rateLimited = (retryAfterSeconds: number) =>
  new AppError(429, 'RATE_LIMITED', 'too many attempts; try again after the time in the retry-after header', {
    'retry-after': String(retryAfterSeconds),
  });
export const revocationUnavailable = () =>
  new AppError(503, 'REVOCATION_UNAVAILABLE', 'the revocation store is unreachable; try again shortly');
export const storeUnavailable = (message = 'a store this operation needs is unreachable; try again shortly') =>
  new AppError(503, 'STORE_UNAVAILABLE', message);

export const connectionExists = () => new AppError(409, 'CONNECTION_EXISTS', 'this organisation already has a connection of that name');
export const connectionDisabled = () => new AppError(409, 'CONNECTION_DISABLED', 'this connection is disabled');
export const connectionChanged = () =>
  new AppError(409, 'CONNECTION_CHANGED', "the connection's credentials were rotated during the call; try again");
export const webhookSignatureInvalid = () =>
  new AppError(401, 'WEBHOOK_SIGNATURE_INVALID', 'missing or invalid webhook signature, or a timestamp more than 5 minutes off');
export const webhookReplayed = () => new AppError(409, 'WEBHOOK_REPLAYED', 'this webhook id was already used');
export const rotationSuperseded = () =>
  new AppError(409, 'ROTATION_SUPERSEDED', 'a rotation signed at the same time or later already set these credentials');
export const exportLimitReached = (max: number) =>
  new AppError(
    409,
    'EXPORT_LIMIT_REACHED',
    `this organisation already has ${max} unfinished audit exports; wait for one to finish or cancel one`,
  );
export const exportNotReady = (state: string) =>
  new AppError(409, 'EXPORT_NOT_READY', `the export is ${state}; its file can be downloaded once it is done`);
export const exportFinished = (state: string) => new AppError(409, 'EXPORT_FINISHED', `the export is already ${state}`);
/** The upstream refused or failed; `reason` is one of our outcome words, never an upstream body. */
export const upstreamFailed = (reason: string) => new AppError(502, 'UPSTREAM_FAILED', `the Syrve/iiko server call failed (${reason})`);
export const upstreamBusy = (retryAfterSeconds: number) =>
  new AppError(503, 'UPSTREAM_BUSY', 'another caller is logging in to this connection and did not finish in time; try again', {
    'retry-after': String(retryAfterSeconds),
  });
export const identityProviderFailed = () =>
  new AppError(502, 'UPSTREAM_FAILED', 'the identity provider could not be reached or described itself unusably; try again');
export const notConfigured = (what: string) => new AppError(503, 'NOT_CONFIGURED', `${what} is not configured on this deployment`);

export interface ErrorBody {
  error: { code: ErrorCode; message: string };
}

export function errorBody(error: AppError): ErrorBody {
  return { error: { code: error.code, message: error.message } };
}
