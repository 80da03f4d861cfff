// The error responses of a route, for the OpenAPI document.
import * as z from 'zod';

const errorResponseSchema = z.object({
  error: z.object({ code: z.string(), message: z.string() }),
});

const retryAfterHeader = {
  'retry-after': {
    description: 'Seconds to wait: until the throttle window ends (429), or for a login in progress (503 UPSTREAM_BUSY)',
    schema: { type: 'integer' as const, minimum: 1 },
  },
};

/** The error responses every authenticated route can give, for the OpenAPI document. */
export function errorResponses<S extends number>(...statuses: S[]) {
  const descriptions: Record<number, string> = {
    400: 'VALIDATION_FAILED (MFA_CODE_INVALID on the MFA confirmation)',
    401: 'UNAUTHENTICATED or TOKEN_REVOKED (UNAUTHENTICATED alone on the /ops routes, WEBHOOK_SIGNATURE_INVALID on webhooks, MFA_INVALID on the MFA verification, OIDC_FAILED on the OIDC callback)',
    403: 'FORBIDDEN',
    404: 'NOT_FOUND',
    409: 'MFA_ALREADY_ENROLLED, ROLE_CONFLICT, SLUG_TAKEN, DOMAIN_TAKEN, INVITE_LIMIT_REACHED, CONNECTION_EXISTS, CONNECTION_DISABLED, CONNECTION_CHANGED, WEBHOOK_REPLAYED, ROTATION_SUPERSEDED, EXPORT_LIMIT_REACHED, EXPORT_NOT_READY or EXPORT_FINISHED',
    410: 'INVITE_INVALID',
    429: 'RATE_LIMITED, with a retry-after header (seconds)',
    502: 'UPSTREAM_FAILED',
    503: 'REVOCATION_UNAVAILABLE, STORE_UNAVAILABLE, UPSTREAM_BUSY (with retry-after) or NOT_CONFIGURED',
  };
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        description: descriptions[status] ?? 'error',
        ...(status === 429 || status === 503 ? { headers: retryAfterHeader } : {}),
        content: { 'application/json': { schema: errorResponseSchema } },
      },
    ]),
  ) as Record<S, { description: string; content: { 'application/json': { schema: typeof errorResponseSchema } } }>;
}
