// auth.oidc.start: a browser asks to sign in to an organisation through an OpenID provider that organisation allows; the
// answer is the provider's authorization URL with a fresh single-use state, a random nonce and the S256 challenge of a
// random PKCE verifier, and the value of the cookie that binds the state to this browser.
import * as oauth from 'oauth4webapi';
import { SINGLE_USE_TTL_SECONDS } from '../../keys/index.ts';
import { randomToken, sha256Hex } from '../../crypto/index.ts';
import { singleUse } from '../../runtime/single-use/index.ts';
import { throttle } from '../../runtime/throttle/index.ts';
import { errorKind } from '../../log/logger.ts';
import type { Deps } from '../../deps.ts';
import { oidcStateSchema } from './oidc-state.ts';
import { providerAccess } from './organization-providers.ts';
import { endpoint, providerClient, type ProviderClient } from './provider-client.ts';

export interface StartOidcInput {
  providerId: string;
  organizationId: string;
  clientIp: string | undefined;
  correlationId: string;
}

export type StartOidcOutcome =
  /** `browserBinding` goes into the binding cookie and nowhere else; the state keeps only its SHA-256. */
  | { ok: true; location: string; browserBinding: string; expiresInSeconds: number }
  /** No such provider, or the organisation does not exist or does not allow it: one answer, and nothing written. */
  | { ok: false; reason: 'unknown-provider' | 'provider-unavailable' }
  /** The organisation lists the provider, but its sign-in policy does not allow OpenID sign-in; nothing written. */
  | { ok: false; reason: 'method-not-allowed' }
  | { ok: false; reason: 'rate-limited'; retryAfterSeconds: number };

export async function startOidcSignIn(deps: Deps, input: StartOidcInput): Promise<StartOidcOutcome> {
  const provider = deps.config.oidcProviders.find((candidate) => candidate.id === input.providerId);
  if (provider === undefined) return { ok: false, reason: 'unknown-provider' };
  // Before anything is written (no throttle counter, no state): an organisation that does not exist or does not list
  // this provider gets nothing from this route, so it cannot be used to fill Redis or another tenant's audit trail.
  const access = await providerAccess(deps, provider.id, input.organizationId);
  // The organisation's sign-in policy forbids OpenID sign-in: said before anything is written, as the list's refusal is.
  if (access === 'method-not-allowed') return { ok: false, reason: 'method-not-allowed' };
  if (access !== 'allowed') return { ok: false, reason: 'unknown-provider' };
  // Each start writes a key: the sign-in IP bucket (shared with password login, fail open) bounds what one address can pile up.
  const [byIp, client] = await Promise.all([
    throttle.hitIp(deps, { action: 'login-ip', clientIp: input.clientIp, correlationId: input.correlationId }),
    providerClient(provider, deps.config.appEnv, deps.clock.now()).catch((error: unknown) => {
      deps.logger.warn('oidc_provider_unavailable', {
        provider: provider.id,
        step: 'discovery',
        errorKind: errorKind(error),
        correlationId: input.correlationId,
      });
      return undefined;
    }),
  ]);
  if (!byIp.allowed) return { ok: false, reason: 'rate-limited', retryAfterSeconds: byIp.retryAfterSeconds };
  if (client === undefined) return { ok: false, reason: 'provider-unavailable' };
  let authorizationEndpoint: URL;
  try {
    authorizationEndpoint = endpoint(client.as.authorization_endpoint, client.requestOptions[oauth.allowInsecureRequests] === true);
  } catch {
    deps.logger.warn('oidc_provider_unavailable', { provider: provider.id, step: 'metadata', correlationId: input.correlationId });
    return { ok: false, reason: 'provider-unavailable' };
  }
  // Random per start (RFC 7636 section 4.1: 32 random bytes, 43 characters of base64url), kept only in the state's value.
  const pkceVerifier = oauth.generateRandomCodeVerifier();
  const nonce = oauth.generateRandomNonce();
  const browserBinding = randomToken(32);
  // Redis down throws (503): a sign-in whose state cannot be kept must not begin.
  const state = await singleUse.issue(deps, 'oidc-state', oidcStateSchema, {
    providerId: provider.id,
    organizationId: input.organizationId,
    browserHash: await sha256Hex(browserBinding),
    pkceVerifier,
    nonce,
    issuedAtUtc: new Date(deps.clock.now()).toISOString(),
    correlationId: input.correlationId,
  });
  return {
    ok: true,
    location: await authorizationUrl(client, authorizationEndpoint, { state, nonce, pkceVerifier }),
    browserBinding,
    expiresInSeconds: SINGLE_USE_TTL_SECONDS['oidc-state'],
  };
}

async function authorizationUrl(
  client: ProviderClient,
  base: URL,
  request: { state: string; nonce: string; pkceVerifier: string },
): Promise<string> {
  const url = new URL(base);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', client.config.clientId);
  url.searchParams.set('redirect_uri', client.config.redirectUri);
  url.searchParams.set('scope', 'openid email');
  url.searchParams.set('state', request.state);
  url.searchParams.set('nonce', request.nonce);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(request.pkceVerifier));
  url.searchParams.set('code_challenge_method', 'S256');
  return url.href;
}
