// What an OIDC state stands for while it lives (10 min): who started the sign-in, where, with which provider. The nonce
// and the PKCE verifier are not here: both are derived from the state itself (derived-secrets.ts), so no store holds them.
import * as z from 'zod';

export const oidcStateSchema = z.strictObject({
  providerId: z.string().regex(/^[a-z][a-z0-9-]{0,31}$/),
  organizationId: z.uuid(),
  issuedAtUtc: z.iso.datetime(),
  correlationId: z.string().min(1).max(128),
});

export type OidcState = z.infer<typeof oidcStateSchema>;
