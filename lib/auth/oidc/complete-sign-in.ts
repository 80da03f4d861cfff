// auth.oidc.callback: the provider sends the browser back with a code and our state. The state is consumed once, the
// code exchanged with the derived PKCE verifier, the ID token checked (oauth4webapi: issuer, audience, nonce, expiry;
// jose: the signature against the provider's JWKS), and the verified email linked to a member of the state's organisation.
import * as oauth from 'oauth4webapi';
import { jwtVerify } from 'jose';
import { normalizeEmail } from '../../keys/index.ts';
import { writeAudit } from '../../pg/audit.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { singleUse } from '../../runtime/single-use/index.ts';
import { errorKind } from '../../log/logger.ts';
import type { Deps } from '../../deps.ts';
import type { VerifiedUser } from '../sign-in.ts';
import { openSession } from '../sessions/open-session.ts';
import type { SessionTokens } from '../sessions/session-tokens.ts';
import { nonceFor, pkceVerifierFor } from './derived-secrets.ts';
import { failureReason, type OidcFailureReason } from './failure-reason.ts';
import { oidcStateSchema, type OidcState } from './oidc-state.ts';
import { providerClient, type ProviderClient } from './provider-client.ts';

export interface CompleteOidcInput {
  providerId: string;
  /** The callback's query string as the provider sent it (code, state, iss, or error). */
  parameters: URLSearchParams;
  /** The browser's User-Agent header, recorded with the session. */
  userAgent: string | undefined;
  correlationId: string;
}

export type CompleteOidcOutcome =
  | { ok: true; kind: 'signed-in'; tokens: SessionTokens }
  | { ok: true; kind: 'mfa-required'; user: VerifiedUser }
  | { ok: false; reason: 'unknown-provider' }
  /** Every check passed and the member is linked, but their organisation is suspended (docs/design/tenants.md#suspension). */
  | { ok: false; reason: 'tenant-suspended' }
  /** Every other refusal is one answer to the caller; the word is for the log and the audit row only. */
  | { ok: false; reason: 'failed'; detail: OidcFailureReason };

class Refused extends Error {
  constructor(readonly reason: OidcFailureReason) {
    super(reason);
  }
}

interface MemberRow {
  id: string;
  email: string;
  credential_epoch: number;
  mfa_enrolled: boolean;
  tenant_suspended: boolean;
}

export async function completeOidcSignIn(deps: Deps, input: CompleteOidcInput): Promise<CompleteOidcOutcome> {
  const provider = deps.config.oidcProviders.find((candidate) => candidate.id === input.providerId);
  if (provider === undefined) return { ok: false, reason: 'unknown-provider' };
  const state = input.parameters.get('state') ?? '';
  // Consumed before anything else, whatever follows: a state is good for one callback, a failed one included.
  // Redis down throws (503, fail closed).
  const consumed = await singleUse.consume(deps, 'oidc-state', oidcStateSchema, state);
  if (!consumed.ok) return failed(deps, input, 'state', undefined);
  const started = consumed.value;
  if (started.providerId !== provider.id) return failed(deps, input, 'provider-mismatch', started);
  let email: string;
  try {
    const client = await providerClient(provider, deps.config.appEnv, deps.clock.now());
    email = await verifiedEmail(deps, client, input.parameters, state);
  } catch (error) {
    return failed(deps, input, error instanceof Refused ? error.reason : failureReason(error), started, errorKind(error));
  }
  // From here on PostgreSQL not answering is a 503, as everywhere else; the state is spent either way.
  const member = await findMember(deps, email, started.organizationId);
  if (member === undefined) return failed(deps, input, 'unlinked', started);
  if (member.tenant_suspended) return { ok: false, reason: 'tenant-suspended' };
  const user: VerifiedUser = {
    userId: member.id,
    email: member.email,
    organizationId: started.organizationId,
    mfaEnrolled: member.mfa_enrolled,
    credentialEpoch: member.credential_epoch,
  };
  // As with a password: the provider vouched for the email, not for this deployment's second factor.
  if (user.mfaEnrolled) return { ok: true, kind: 'mfa-required', user };
  const tokens = await openSession(deps, {
    userId: member.id,
    email: member.email,
    organizationId: started.organizationId,
    method: 'oidc',
    userAgent: input.userAgent,
    correlationId: input.correlationId,
    alsoAudit: [
      {
        action: 'auth.oidc_signed_in',
        actorUserId: member.id,
        organizationId: started.organizationId,
        locationId: null,
        targetId: member.id,
        correlationId: input.correlationId,
        details: { provider: provider.id },
      },
    ],
  });
  return { ok: true, kind: 'signed-in', tokens };
}

/** Exchanges the code and returns the ID token's email once every check has passed, or throws. */
async function verifiedEmail(deps: Deps, client: ProviderClient, parameters: URLSearchParams, state: string): Promise<string> {
  // Checks `state` equals the one consumed, `iss` (RFC 9207) when sent, and turns `error=` into AuthorizationResponseError.
  const callback = oauth.validateAuthResponse(client.as, client.client, parameters, state);
  const [verifier, nonce] = await Promise.all([
    pkceVerifierFor(deps.config.indexHashKey, state),
    nonceFor(deps.config.indexHashKey, state),
  ]);
  const response = await oauth.authorizationCodeGrantRequest(
    client.as,
    client.client,
    client.clientAuth,
    callback,
    client.config.redirectUri,
    verifier,
    client.requestOptions,
  );
  // Claims: iss = the discovered issuer, aud holds client_id (azp when several), exp/iat/nbf, nonce; alg on the list.
  const result = await oauth.processAuthorizationCodeResponse(client.as, client.client, response, {
    expectedNonce: nonce,
    requireIdToken: true,
  });
  // oauth4webapi leaves the signature to TLS on this path; jose checks it against the JWKS (docs/design/oidc.md#oidc-sign-in).
  const { payload } = await jwtVerify(result.id_token!, client.jwks, {
    issuer: client.as.issuer,
    audience: client.config.clientId,
    algorithms: client.idTokenAlgorithms,
    requiredClaims: ['sub', 'exp', 'iat'],
  });
  if (payload.email_verified !== true || typeof payload.email !== 'string' || payload.email.length > 254)
    throw new Refused('email-unverified');
  return payload.email;
}

/** The user with this email who holds a role in the organisation (the SQL of lib/auth/sign-in.ts); nobody is created. */
async function findMember(deps: Deps, email: string, organizationId: string): Promise<MemberRow | undefined> {
  const rows = await dbCall('read', 'auth.oidc.member', (signal) =>
    deps.db.query<MemberRow>(
      `SELECT u.id, u.email, u.credential_epoch, EXISTS (
                SELECT 1 FROM user_mfa m WHERE m.user_id = u.id AND m.confirmed_at IS NOT NULL) AS mfa_enrolled,
              EXISTS (SELECT 1 FROM organizations o WHERE o.id = $2 AND o.state = 'suspended') AS tenant_suspended
         FROM users u
        WHERE u.email = $1
          AND EXISTS (SELECT 1 FROM role_assignments r WHERE r.user_id = u.id AND r.organization_id = $2)`,
      [normalizeEmail(email), organizationId],
      { signal },
    ),
  );
  return rows[0];
}

/** Logs the word (never a code, token, state or message), audits it when the state names an organisation, and refuses. */
async function failed(
  deps: Deps,
  input: CompleteOidcInput,
  reason: OidcFailureReason,
  started: OidcState | undefined,
  /** The class of what was thrown (a name, never its message), to tell a provider bug from ours. */
  thrown?: string,
): Promise<CompleteOidcOutcome> {
  deps.logger.warn('oidc_sign_in_failed', { provider: input.providerId, reason, errorKind: thrown, correlationId: input.correlationId });
  if (started !== undefined) {
    try {
      await dbCall('commit', 'auth.oidc.failed', (signal) =>
        writeAudit(
          deps.db,
          {
            action: 'auth.oidc_failed',
            actorUserId: null,
            organizationId: started.organizationId,
            locationId: null,
            targetId: null,
            correlationId: input.correlationId,
            details: { provider: input.providerId, reason },
          },
          new Date(deps.clock.now()),
          { signal },
        ),
      );
    } catch (error) {
      // The refusal stands either way; a missing audit row is logged, not turned into a 503.
      deps.logger.warn('oidc_audit_failed', {
        provider: input.providerId,
        errorKind: errorKind(error),
        correlationId: input.correlationId,
      });
    }
  }
  return { ok: false, reason: 'failed', detail: reason };
}
