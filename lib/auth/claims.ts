// The bearer-token claims runstate relies on (docs/api.md#authentication), checked by zod after the signature is verified.
import * as z from 'zod';

export const claimsSchema = z.object({
  sub: z.uuid(),
  sid: z.uuid(),
  jti: z.string().min(1).max(200),
  iat: z.number().int(),
  exp: z.number().int(),
  email: z.email().max(254).optional(),
  email_verified: z.boolean().optional(),
  /** The organisation the token's session is bound to: on every token this deployment signs (docs/design/sign-in.md). */
  org: z.uuid().optional(),
});

export type Claims = z.infer<typeof claimsSchema>;

export interface Principal {
  userId: string;
  sessionId: string;
  jti: string;
  /** Unix seconds; the denylist entry for this token lives until then. */
  expiresAt: number;
  /** Present only when the issuer vouches for it: `email_verified: true`; false or a missing claim is no verified email. */
  verifiedEmail?: string;
  /**
   * The organisation the session is bound to, from the `org` claim: present on this deployment's own tokens, absent on
   * an external identity provider's (an unbound token, which keeps the role check's rules alone).
   */
  organizationId?: string;
}

export function principalFromClaims(claims: Claims): Principal {
  return {
    userId: claims.sub.toLowerCase(),
    sessionId: claims.sid.toLowerCase(),
    jti: claims.jti,
    expiresAt: claims.exp,
    ...(claims.email !== undefined && claims.email_verified === true ? { verifiedEmail: claims.email } : {}),
    ...(claims.org !== undefined ? { organizationId: claims.org.toLowerCase() } : {}),
  };
}
