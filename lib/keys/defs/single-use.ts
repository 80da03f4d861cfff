// The single-use tokens (lib/runtime/single-use): keyed by the SHA-256 of the token, which is all a consumer holds, so no
// tenant can be in the key; consumed by one GET+DEL script. Their lifetimes, values and keys.
import * as z from 'zod';
import { defineKey } from '../define-key.ts';
import { digest } from '../id-segments.ts';
import { json } from '../key-values.ts';
import { platformScope, platformTagScope } from '../scopes.ts';

export const SINGLE_USE_TTL_SECONDS = {
  /** A reset link is read from an inbox, maybe an hour later; not longer, as it stands in for the password. */
  'password-reset': 3_600,
  /** Handed from one app to another by a redirect: seconds are enough, a minute tolerates a slow browser. */
  'sso-handoff': 60,
  /** A person at the provider's sign-in page: ten minutes to type a password and approve. */
  'oidc-state': 600,
  /** The dev console link `npm start` prints (APP_ENV=dev only): as long as the 12-hour demo tokens printed beside it. */
  'console-dev-login': 43_200,
} as const;

export type SingleUseKind = keyof typeof SINGLE_USE_TTL_SECONDS;

/**
 * What a password-reset token stands for while it lives: whose password it may set, in which organisation, and the
 * user's credential epoch when it was issued (migrations/0015: any password change since makes the link invalid).
 */
export const resetSchema = z.lazy(() =>
  z.strictObject({
    userId: z.uuid(),
    organizationId: z.uuid(),
    credentialEpoch: z.number().int().min(0),
    issuedAtUtc: z.iso.datetime(),
    correlationId: z.string().min(1).max(128),
  }),
);

/** What a handoff code stands for while it lives: the session being handed over and the app it is handed to. */
export const handoffSchema = z.lazy(() =>
  z.strictObject({
    userId: z.uuid(),
    sessionId: z.uuid(),
    email: z.email().max(254),
    audience: z.string().min(1).max(63),
    issuedAtUtc: z.iso.datetime(),
    correlationId: z.string().min(1).max(128),
  }),
);

/** What an OIDC state stands for while it lives: who started the sign-in, where, with which provider, the browser it is
 * bound to (the SHA-256 of its binding cookie, never the cookie), and the random PKCE verifier and nonce of this one
 * start (lib/auth/oidc/start-sign-in.ts). The verifier is a secret: it is in this value and nowhere else. */
export const oidcStateSchema = z.lazy(() =>
  z.strictObject({
    providerId: z.string().regex(/^[a-z][a-z0-9-]{0,31}$/),
    organizationId: z.uuid(),
    browserHash: z.string().regex(/^[0-9a-f]{64}$/),
    // RFC 7636 section 4.1: 43 to 128 unreserved characters.
    pkceVerifier: z.string().regex(/^[A-Za-z0-9._~-]{43,128}$/),
    nonce: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
    issuedAtUtc: z.iso.datetime(),
    correlationId: z.string().min(1).max(128),
  }),
);
export type OidcState = z.infer<typeof oidcStateSchema>;

/** What the dev console link stands for (APP_ENV=dev only): the demo admin it signs in. */
export const devLoginSchema = z.lazy(() =>
  z.strictObject({
    userId: z.uuid(),
    organizationId: z.uuid(),
    email: z.email().max(254),
    issuedAtUtc: z.iso.datetime(),
    correlationId: z.string().min(1).max(128),
  }),
);

const singleUse = (purpose: SingleUseKind, param: string, of: string, schema: z.ZodLazy, scope = platformScope) =>
  defineKey({
    scope,
    domain: 'auth',
    purpose,
    id: [digest(param, `sha256Hex(${of})`)],
    ttl: { seconds: SINGLE_USE_TTL_SECONDS[purpose] },
    value: json(schema),
  });

export const singleUseKeys = {
  passwordResetToken: singleUse('password-reset', 'tokenDigest', 'token', resetSchema),
  // Under the hash tag of the per-address counter their consume script counts first (one slot on a cluster).
  ssoHandoffCode: singleUse('sso-handoff', 'codeDigest', 'code', handoffSchema, platformTagScope('sso-handoff')),
  oidcState: singleUse('oidc-state', 'stateDigest', 'state', oidcStateSchema, platformTagScope('oidc-callback')),
  consoleDevLogin: singleUse('console-dev-login', 'codeDigest', 'code', devLoginSchema),
};
