// Every error code of the HTTP surface with its status and message (docs/api.md#errors): the ErrorCode type, the
// factories of app-error.ts and each route's OpenAPI error responses (route-errors.ts) are all read from this table.
interface CatalogEntry {
  status: 400 | 401 | 403 | 404 | 408 | 409 | 410 | 429 | 431 | 500 | 502 | 503;
  /** The message, or what builds it from the thrower's words; a message never repeats a submitted value. */
  message: string | ((...args: never[]) => string);
  /** The answer carries `retry-after`: the factory's one argument, in seconds. */
  retryAfter?: true;
  /** Answered only by the console's own routes, which the OpenAPI document does not describe (docs/console.md). */
  consoleOnly?: true;
  /**
   * Answered only by the Node server, for a request its HTTP parser gave up on before any route saw it
   * (functions/entries/node.ts); the OpenAPI document, which describes routes, does not list it.
   */
  nodeServerOnly?: true;
}

export const ERROR_CATALOG = {
  VALIDATION_FAILED: { status: 400, message: (detail: string) => detail },
  /** A password being set (register, reset confirm) is in the breached-password range API's list; nothing was written or spent. */
  PASSWORD_BREACHED: {
    status: 400,
    message: 'this password is in a list of passwords exposed in data breaches; choose another; nothing was changed',
  },
  MFA_CODE_INVALID: {
    status: 400,
    message: "the code does not match the pending factor or was already used; check the device's clock and try the next code",
  },
  /** A sign-in policy under which no organisation-wide OrganizationAdmin could sign in (docs/design/sign-in-policy.md). */
  SIGN_IN_POLICY_LOCKOUT: {
    status: 400,
    message: 'no organisation-wide OrganizationAdmin could sign in under this policy; allow a method an admin has; nothing was changed',
  },
  /** A webhook endpoint's URL whose host is, or resolves to, an address events must not reach (docs/design/events.md). */
  WEBHOOK_URL_FORBIDDEN: {
    status: 400,
    message: (problem: string) => `events cannot be sent to this URL: ${problem}; nothing was changed`,
  },
  UNAUTHENTICATED: { status: 401, message: (message: string = 'a valid bearer token is required') => message },
  TOKEN_REVOKED: { status: 401, message: 'this token or its session has been revoked' },
  INVALID_CREDENTIALS: { status: 401, message: 'the email or password is wrong' },
  REFRESH_INVALID: {
    status: 401,
    message: 'this refresh token is unknown, already used, or its session has ended; sign in again',
  },
  HANDOFF_INVALID: {
    status: 401,
    message: "this handoff code is unknown, used, expired or for another app, or the app's client secret is missing or wrong",
  },
  MFA_INVALID: {
    status: 401,
    message: 'this challenge is unknown, expired or used up, or the code is wrong or already used; sign in again if it persists',
  },
  /** One answer for every OIDC callback that does not sign in; the reason is logged as a word (lib/auth/oidc/failure-reason.ts). */
  /** An enrolment token (the answer of a sign-in where the organisation requires MFA) that is malformed, unknown, expired or spent. */
  ENROLMENT_INVALID: {
    status: 401,
    message: 'this enrolment token is unknown, expired or already used, or the password changed since; sign in again',
  },
  OIDC_FAILED: { status: 401, message: 'the sign-in through the identity provider could not be completed; start it again' },
  WEBHOOK_SIGNATURE_INVALID: {
    status: 401,
    message: 'missing or invalid webhook signature, or a timestamp more than 5 minutes off',
  },
  /** An API key on a route its scopes do not reach, or one no key reaches (docs/design/api-keys.md#scopes). */
  SCOPE_MISSING: { status: 403, message: (scope: string = 'none') => `this API key's scopes do not reach this route (it needs: ${scope})` },
  FORBIDDEN: { status: 403, message: (message: string = 'no role for this tenant or action') => message },
  /** The organisation is suspended: refused to its members on every /orgs route, at sign-in and at refresh (docs/design/tenants.md#suspension); nothing was spent or ended, so the same call works once it is reactivated. */
  TENANT_SUSPENDED: { status: 403, message: 'this organisation is suspended; an operator must reactivate it first' },
  /**
   * A switch of organisation (PUT /auth/context) to one that does not accept the sign-in the session was opened with (an
   * OpenID provider it does not list): nothing changed; sign in to that organisation instead.
   */
  SIGN_IN_REQUIRED: {
    status: 403,
    message: 'this organisation does not accept the sign-in this session was opened with; sign in to it; nothing was changed',
  },
  /** The organisation's sign-in policy does not allow this way of signing in (docs/design/sign-in-policy.md); no session exists. */
  SIGN_IN_METHOD_NOT_ALLOWED: { status: 403, message: 'this organisation does not allow this sign-in method; use one it allows' },
  /**
   * The organisation began requiring a second factor while this sign-in was under way: nothing was opened; signing in
   * again answers the enrolment token (docs/design/sign-in-policy.md).
   */
  MFA_ENROLMENT_REQUIRED: {
    status: 403,
    message: 'this organisation requires a second factor; sign in again to enrol one; nothing was opened',
  },
  /** The console refused a state-changing request without its CSRF defence (lib/console/csrf.ts); `reason` names what was missing. */
  CSRF_REFUSED: {
    status: 403,
    message: (reason: string) => `refused: ${reason}; state-changing console requests must come from the console page itself`,
    consoleOnly: true,
  },
  /** An invitation shown to its admin (delivery 'none') cannot create an account: only a mailbox-delivered one can. */
  INVITE_NOT_DELIVERED: {
    status: 403,
    message: 'this invitation was not delivered by email, so it cannot create an account; sign in and accept it instead',
  },
  NOT_FOUND: { status: 404, message: (message: string = 'no such active object in this tenant') => message },
  /** The request's headers and body did not all arrive within the Node server's receive limit (functions/entries/node.ts). */
  REQUEST_TIMEOUT: { status: 408, message: 'the request did not arrive in full in time; send it again', nodeServerOnly: true },
  MFA_ALREADY_ENROLLED: { status: 409, message: 'this account already has a confirmed TOTP factor' },
  ROLE_CONFLICT: {
    status: 409,
    message: (heldRole: string) => `the account already holds the role ${heldRole} at this scope; the invitation stays active`,
  },
  INVITE_LIMIT_REACHED: {
    status: 409,
    message: (max: number) => `this organisation already has ${max} active invitations; cancel some or wait for them to expire`,
  },
  LAST_ADMIN: {
    status: 409,
    message: "this is the organisation's only organisation-wide OrganizationAdmin; make another member one first; nothing was changed",
  },
  ACCOUNT_EXISTS: {
    status: 409,
    message: 'an account with this email already exists; sign in, then accept the invitation; it stays active',
  },
  SLUG_TAKEN: { status: 409, message: 'another organisation already has this slug' },
  DOMAIN_TAKEN: { status: 409, message: 'one of these domains belongs to another organisation; nothing was changed' },
  /** A roll of a key that was rolled before (docs/design/api-keys.md#roll): its successor is the one to roll. */
  API_KEY_ROLLED: { status: 409, message: 'this API key was already rolled; roll the key that replaced it' },
  CONNECTION_EXISTS: { status: 409, message: 'this organisation already has a connection of that name' },
  CONNECTION_DISABLED: { status: 409, message: 'this connection is disabled' },
  CONNECTION_CHANGED: { status: 409, message: "the connection's credentials were rotated during the call; try again" },
  WEBHOOK_ENDPOINT_LIMIT: {
    status: 409,
    message: (max: number) => `this organisation already has ${max} webhook endpoints, the most it may have; delete one first`,
  },
  WEBHOOK_ENDPOINT_DISABLED: { status: 409, message: 'this webhook endpoint is disabled; enable it first' },
  WEBHOOK_DELIVERY_SUCCEEDED: { status: 409, message: 'this delivery succeeded; it is not sent again' },
  WEBHOOK_REPLAYED: { status: 409, message: 'this webhook id was already used' },
  ROTATION_SUPERSEDED: { status: 409, message: 'a rotation signed at the same time or later already set these credentials' },
  EXPORT_LIMIT_REACHED: {
    status: 409,
    message: (max: number) => `this organisation already has ${max} unfinished audit exports; wait for one to finish or cancel one`,
  },
  EXPORT_NOT_READY: {
    status: 409,
    message: (state: string) => `the export is ${state}; its file can be downloaded once it is done`,
  },
  EXPORT_FINISHED: { status: 409, message: (state: string) => `the export is already ${state}` },
  INVITE_INVALID: { status: 410, message: 'this invitation is unknown, expired, cancelled or already used' },
  RESET_INVALID: { status: 410, message: 'this reset link is unknown, used or expired; ask for a new one' },
  RATE_LIMITED: { status: 429, message: 'too many attempts; try again after the time in the retry-after header', retryAfter: true },
  /** The request's headers are over the Node server's size limit (its `maxHeaderSize`, 16 KiB by default). */
  HEADERS_TOO_LARGE: {
    status: 431,
    message: "the request's headers are larger than this server accepts; send fewer or shorter headers",
    nodeServerOnly: true,
  },
  INTERNAL_ERROR: { status: 500, message: 'unexpected error' },
  /** The Syrve/iiko server (`reason` is one of our outcome words, never an upstream body) or the identity provider failed. */
  UPSTREAM_FAILED: {
    status: 502,
    message: (failed: { syrve: string } | 'identity-provider') =>
      failed === 'identity-provider'
        ? 'the identity provider could not be reached or described itself unusably; try again'
        : `the Syrve/iiko server call failed (${failed.syrve})`,
  },
  UPSTREAM_BUSY: {
    status: 503,
    message: 'another caller is logging in to this connection and did not finish in time; try again',
    retryAfter: true,
  },
  /** PASSWORD_BREACH_CHECK=fail-closed and the range API did not answer usably in time; nothing was written or spent. */
  BREACH_CHECK_UNAVAILABLE: {
    status: 503,
    message: 'the breached-password check could not answer in time; nothing was changed; try again shortly',
  },
  NOT_CONFIGURED: { status: 503, message: (what: string) => `${what} is not configured on this deployment` },
  REVOCATION_UNAVAILABLE: { status: 503, message: 'the revocation store is unreachable; try again shortly' },
  STORE_UNAVAILABLE: {
    status: 503,
    message: (message: string = 'a store this operation needs is unreachable; try again shortly') => message,
  },
  /** A signed-in user's MFA change (enrol, remove, new recovery codes) without its proof: one answer whichever part failed (lib/auth/mfa/step-up.ts). */
  REAUTH_FAILED: {
    status: 403,
    message: (message: string = 'the password or the code is wrong, or the code was already used; nothing was changed') => message,
  },
  /** A passkey response that cannot be read, of the wrong ceremony type, without user verification, or whose attestation or assertion the library refuses (lib/auth/passkeys/). */
  PASSKEY_RESPONSE_INVALID: {
    status: 400,
    message:
      'the passkey response could not be verified (its form, its ceremony, or user verification is missing); ask for new options and try again',
  },
  /** The challenge a passkey response names is unknown, expired or already used: a replayed response lands here. */
  PASSKEY_CHALLENGE_INVALID: {
    status: 400,
    message: 'this passkey challenge is unknown, expired or already used; ask for new options',
  },
  /** A live challenge of another ceremony (a registration's presented for sign-in, or back), organisation or user; it is spent. */
  PASSKEY_CHALLENGE_MISMATCH: {
    status: 400,
    message: 'this passkey challenge was issued for another ceremony, organisation or user; it is spent; ask for new options',
  },
  /** The response was made on an origin PASSKEY_ORIGINS does not list, or for another relying party id. */
  PASSKEY_ORIGIN_MISMATCH: {
    status: 400,
    message: 'this passkey response was made on another site or for another relying party',
  },
  /** A passkey sign-in with an unknown credential, a bad signature, or an account holding no role in the organisation: one answer. */
  PASSKEY_NOT_ACCEPTED: {
    status: 401,
    message: 'this passkey does not sign in to this organisation',
  },
  /** A signed assertion whose signature counter did not go above the stored one: the authenticator may have been cloned (audited). */
  PASSKEY_COUNTER_REGRESSED: {
    status: 401,
    message:
      "this passkey's signature counter went backwards, which a copied authenticator does; it was refused and recorded; use another sign-in method and remove this passkey",
  },
  /** A registration of a credential that is already registered (to this account or another). */
  PASSKEY_EXISTS: { status: 409, message: 'this passkey is already registered' },
  /** The resolver answered and the domain's `_runstate-challenge` TXT does not hold this claim's value (yet); the claim stays pending. */
  DOMAIN_NOT_VERIFIED: {
    status: 409,
    message: 'the TXT record shown for this domain was not found at its challenge name; publish it, wait for DNS, and try again',
  },
  /** The DNS-over-HTTPS resolver could not be reached, was late or gave no usable answer; nothing was changed. */
  DNS_LOOKUP_FAILED: { status: 502, message: 'the DNS resolver did not answer usably in time; nothing was changed; try again' },
} as const satisfies Record<string, CatalogEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOG;
export type ErrorStatus = (typeof ERROR_CATALOG)[ErrorCode]['status'];

/** The codes in the catalog's order, which is also the order every description lists them in. */
export const ERROR_CODES = Object.keys(ERROR_CATALOG) as ErrorCode[];
