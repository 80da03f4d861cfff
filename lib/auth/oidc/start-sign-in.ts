// auth.oidc.start: a browser asks to sign in to an organisation through a configured OpenID provider; the answer is
// the provider's authorization URL with a fresh single-use state, its derived nonce and PKCE challenge.
import * as oauth from 'oauth4webapi';
import { SINGLE_USE_TTL_SECONDS } from '../../keys/index.ts';
import { singleUse } from '../../runtime/single-use/index.ts';
import { throttle } from '../../runtime/throttle/index.ts';
import { errorKind } from '../../log/logger.ts';
import type { Deps } from '../../deps.ts';
import { nonceFor, pkceVerifierFor } from './derived-secrets.ts';
import { oidcStateSchema } from './oidc-state.ts';
import { endpoint, providerClient, type ProviderClient } from './provider-client.ts';

export interface StartOidcInput {
  providerId: string;
  organizationId: string;
  clientIp: string | undefined;
  correlationId: string;
}

export type StartOidcOutcome =
  | { ok: true; location: string; expiresInSeconds: number }
  | { ok: false; reason: 'unknown-provider' | 'provider-unavailable' }
  | { ok: false; reason: 'rate-limited'; retryAfterSeconds: number };

export async function startOidcSignIn(deps: Deps, input: StartOidcInput): Promise<StartOidcOutcome> {
  const provider = deps.config.oidcProviders.find((candidate) => candidate.id === input.providerId);
  if (provider === undefined) return { ok: false, reason: 'unknown-provider' };
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
  // Redis down throws (503): a sign-in whose state cannot be kept must not begin.
  const state = await singleUse.issue(deps, 'oidc-state', oidcStateSchema, {
    providerId: provider.id,
    organizationId: input.organizationId,
    issuedAtUtc: new Date(deps.clock.now()).toISOString(),
    correlationId: input.correlationId,
  });
  return {
    ok: true,
    location: await authorizationUrl(deps, client, authorizationEndpoint, state),
    expiresInSeconds: SINGLE_USE_TTL_SECONDS['oidc-state'],
  };
}

async function authorizationUrl(deps: Deps, client: ProviderClient, base: URL, state: string): Promise<string> {
  const [verifier, nonce] = await Promise.all([
    pkceVerifierFor(deps.config.indexHashKey, state),
    nonceFor(deps.config.indexHashKey, state),
  ]);
  const url = new URL(base);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', client.config.clientId);
  url.searchParams.set('redirect_uri', client.config.redirectUri);
  url.searchParams.set('scope', 'openid email');
  url.searchParams.set('state', state);
  url.searchParams.set('nonce', nonce);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  return url.href;
}
