// auth.oidc.callback: the provider sends the browser back with a code and our state. The state is consumed once, and only
// by the browser that started it (its binding cookie), the code exchanged with the state's PKCE verifier, the ID token
// checked (oauth4webapi: issuer, audience, nonce, expiry; jose: the signature against the provider's JWKS), the provider
// checked again against the organisation's list, and the verified email linked to a member of the state's organisation.
import * as oauth from 'oauth4webapi';
import { jwtVerify } from 'jose';
import { normalizeEmail } from '../../keys/index.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { errorKind } from '../../log/logger.ts';
import type { Deps } from '../../deps.ts';
import type { VerifiedUser } from '../sign-in.ts';
import { openSession } from '../sessions/open-session.ts';
import { policyFromRow, policyVerdict } from '../sign-in-policy/policy.ts';
import type { SessionTokens } from '../sessions/session-tokens.ts';
import { consumeBoundState } from './consume-state.ts';
import { auditOidcFailure } from './failure-audit.ts';
import { failureReason, type OidcFailureReason } from './failure-reason.ts';
import type { OidcState } from './oidc-state.ts';
import { providerClient, type ProviderClient } from './provider-client.ts';

export interface CompleteOidcInput {
  providerId: string;
  /** The callback's query string as the provider sent it (code, state, iss, or error). */
  parameters: URLSearchParams;
  /** The binding cookie the browser sent (undefined: none); compared, through its hash, with the state's. */
  browserBinding: string | undefined;
  /** The browser's User-Agent header, recorded with the session. */
  userAgent: string | undefined;
  clientIp: string | undefined;
  correlationId: string;
}

export type CompleteOidcOutcome =
  | { ok: true; kind: 'signed-in'; tokens: SessionTokens }
  | { ok: true; kind: 'mfa-required'; user: VerifiedUser }
  /** The organisation requires a second factor and the member has none: the next step enrols one (an enrolment token). */
  | { ok: true; kind: 'mfa-enrolment-required'; user: VerifiedUser }
  | { ok: false; reason: 'unknown-provider' }
  /** Every check passed and the member is linked, but the organisation's sign-in policy does not allow OpenID sign-in. */
  | { ok: false; reason: 'method-not-allowed' }
  /** Every check passed and the member is linked, but their organisation is suspended (docs/design/tenants.md#suspension). */
  | { ok: false; reason: 'tenant-suspended' }
  /** The caller's address is over the callback's limit (oidc-callback): refused before the state is read. */
  | { ok: false; reason: 'rate-limited'; retryAfterSeconds: number }
  /** Every other refusal is one answer to the caller; the word is for the log and the audit row only. */
  | { ok: false; reason: 'failed'; detail: OidcFailureReason };

class Refused extends Error {
  constructor(readonly reason: OidcFailureReason) {
    super(reason);
  }
}

interface MemberRow {
  /** Null when no user with this email holds a role in the organisation. */
  id: string | null;
  email: string | null;
  credential_epoch: number | null;
  mfa_enrolled: boolean;
  tenant_suspended: boolean;
  provider_allowed: boolean;
  sign_in_require_mfa: boolean | null;
  sign_in_methods: string[] | null;
}

export async function completeOidcSignIn(deps: Deps, input: CompleteOidcInput): Promise<CompleteOidcOutcome> {
  const provider = deps.config.oidcProviders.find((candidate) => candidate.id === input.providerId);
  if (provider === undefined) return { ok: false, reason: 'unknown-provider' };
  const state = input.parameters.get('state') ?? '';
  // Consumed before anything else, whatever follows, and only by the browser it was issued to: a state is good for one
  // callback, a failed one included. Presented from another browser it is refused and left for its own browser (a
  // leaked callback URL cannot spend a sign-in that is still in progress). Redis down throws (503, fail closed).
  const consumed = await consumeBoundState(deps, { state, bindingCookie: input.browserBinding, clientIp: input.clientIp });
  // Over the address's callback limit: nothing was read, nothing is audited (the flood would only fill the trail).
  if (consumed.kind === 'rate-limited') return { ok: false, reason: 'rate-limited', retryAfterSeconds: consumed.retryAfterSeconds };
  if (consumed.kind === 'none') return failed(deps, input, 'state', undefined);
  const started = consumed.state;
  if (consumed.kind === 'other-browser') return failed(deps, input, 'browser', started);
  if (started.providerId !== provider.id) return failed(deps, input, 'provider-mismatch', started);
  let email: string;
  try {
    const client = await providerClient(provider, deps.config.appEnv, deps.clock.now());
    email = await verifiedEmail(client, input.parameters, state, started);
  } catch (error) {
    return failed(deps, input, error instanceof Refused ? error.reason : failureReason(error), started, errorKind(error));
  }
  // From here on PostgreSQL not answering is a 503, as everywhere else; the state is spent either way.
  const member = await findMember(deps, email, started.organizationId, provider.id);
  // Checked again here: the organisation may have dropped the provider while its sign-in page was open.
  if (!member.provider_allowed) return failed(deps, input, 'provider-not-allowed', started);
  if (member.id === null || member.email === null || member.credential_epoch === null) return failed(deps, input, 'unlinked', started);
  if (member.tenant_suspended) return { ok: false, reason: 'tenant-suspended' };
  // The policy rides in the member read (docs/design/sign-in-policy.md); the session's insert checks it again.
  const verdict = policyVerdict(policyFromRow(member), 'oidc', member.mfa_enrolled);
  if (verdict === 'method-not-allowed') return { ok: false, reason: 'method-not-allowed' };
  const user: VerifiedUser = {
    userId: member.id,
    email: member.email,
    organizationId: started.organizationId,
    mfaEnrolled: member.mfa_enrolled,
    credentialEpoch: member.credential_epoch,
  };
  // As with a password: the provider vouched for the email, not for this deployment's second factor.
  if (user.mfaEnrolled) return { ok: true, kind: 'mfa-required', user };
  if (verdict === 'mfa-enrolment-required') return { ok: true, kind: 'mfa-enrolment-required', user };
  const tokens = await openSession(deps, {
    userId: member.id,
    email: member.email,
    organizationId: started.organizationId,
    method: 'oidc',
    providerId: provider.id,
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
async function verifiedEmail(client: ProviderClient, parameters: URLSearchParams, state: string, started: OidcState): Promise<string> {
  // Checks `state` equals the one consumed, `iss` (RFC 9207) when sent, and turns `error=` into AuthorizationResponseError.
  const callback = oauth.validateAuthResponse(client.as, client.client, parameters, state);
  const response = await oauth.authorizationCodeGrantRequest(
    client.as,
    client.client,
    client.clientAuth,
    callback,
    client.config.redirectUri,
    started.pkceVerifier,
    client.requestOptions,
  );
  // Claims: iss = the discovered issuer, aud holds client_id (azp when several), exp/iat/nbf, nonce; alg on the list.
  const result = await oauth.processAuthorizationCodeResponse(client.as, client.client, response, {
    expectedNonce: started.nonce,
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

/**
 * One row, always: whether the organisation (not deleted) still lists the provider, whether it is suspended, and the user
 * with this email who holds a role in it (the SQL of lib/auth/sign-in.ts), or nulls; nobody is created.
 */
async function findMember(deps: Deps, email: string, organizationId: string, providerId: string): Promise<MemberRow> {
  const rows = await dbCall('read', 'auth.oidc.member', (signal) =>
    deps.db.query<MemberRow>(
      `SELECT u.id, u.email, u.credential_epoch,
              (u.id IS NOT NULL AND EXISTS (
                SELECT 1 FROM user_mfa m WHERE m.user_id = u.id AND m.confirmed_at IS NOT NULL)) AS mfa_enrolled,
              EXISTS (SELECT 1 FROM organizations o WHERE o.id = $2 AND o.state = 'suspended') AS tenant_suspended,
              EXISTS (SELECT 1 FROM oidc_provider_organizations p JOIN organizations o ON o.id = p.organization_id
                       WHERE p.organization_id = $2 AND p.provider_id = $3 AND o.state <> 'deleted') AS provider_allowed,
              org.sign_in_require_mfa, org.sign_in_methods
         FROM (SELECT 1) AS one
         LEFT JOIN organizations org ON org.id = $2
         LEFT JOIN users u
           ON u.email = $1
          AND EXISTS (SELECT 1 FROM role_assignments r WHERE r.user_id = u.id AND r.organization_id = $2)`,
      [normalizeEmail(email), organizationId, providerId],
      { signal },
    ),
  );
  return rows[0]!;
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
  // Without a state in hand there is no organisation to attribute it to: the log line is the only record.
  if (started !== undefined) {
    await auditOidcFailure(deps, {
      providerId: input.providerId,
      organizationId: started.organizationId,
      reason,
      clientIp: input.clientIp,
      correlationId: input.correlationId,
    });
  }
  return { ok: false, reason: 'failed', detail: reason };
}
