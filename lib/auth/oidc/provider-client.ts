// One configured OpenID provider as oauth4webapi and jose see it: its discovered metadata and its JWKS, cached per
// isolate (like lib/auth/verify-token.ts's JWKS), every request under a deadline; plain http only for a loopback
// issuer in dev and test (lib/config/oidc-providers.ts refuses it anywhere else).
import * as oauth from 'oauth4webapi';
import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';
// Before any of their errors is thrown: the libraries' error classes named as written, in a bundle without keep_names.
import './library-error-names.ts';
import { loopback, type AppEnv, type OidcProviderConfig } from '../../config/index.ts';

/** A provider that does not answer within this fails the step (no sign-in), it never holds a request open. */
export const OIDC_REQUEST_TIMEOUT_MS = 5_000;
/** Providers rarely change endpoints; an hour bounds how long a changed document goes unseen. */
const DISCOVERY_CACHE_MS = 3_600_000;
/** Asymmetric algorithms only: an HS256 ID token would be "signed" with the client secret, which is no proof of issuer. */
const ASYMMETRIC_ALGS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

export interface ProviderClient {
  config: OidcProviderConfig;
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  clientAuth: oauth.ClientAuth;
  /** oauth4webapi's per-request options: the deadline, and plain http where allowed. */
  requestOptions: { signal: () => AbortSignal; [oauth.allowInsecureRequests]?: true };
  jwks: JWTVerifyGetKey;
  /** The algorithms an ID token may be signed with: the provider's list (default RS256), asymmetric ones only. */
  idTokenAlgorithms: string[];
}

const discovered = new Map<string, { expiresAtMs: number; metadata: Promise<oauth.AuthorizationServer> }>();
const jwksByUri = new Map<string, JWTVerifyGetKey>();

/** Plain http is for the local provider only: a loopback issuer, in dev or test. */
export function allowsInsecure(appEnv: AppEnv, issuer: string): boolean {
  const url = new URL(issuer);
  return (appEnv === 'dev' || appEnv === 'test') && url.protocol === 'http:' && loopback(url);
}

/** The provider's client, discovering its metadata on first use in this isolate (a failed discovery is not kept). */
export async function providerClient(provider: OidcProviderConfig, appEnv: AppEnv, nowMs: number): Promise<ProviderClient> {
  const insecure = allowsInsecure(appEnv, provider.issuer);
  const requestOptions = {
    signal: () => AbortSignal.timeout(OIDC_REQUEST_TIMEOUT_MS),
    ...(insecure ? { [oauth.allowInsecureRequests]: true as const } : {}),
  };
  const as = await metadata(provider.issuer, requestOptions, nowMs);
  const jwksUri = endpoint(as.jwks_uri, insecure);
  let jwks = jwksByUri.get(jwksUri.href);
  if (jwks === undefined) {
    // jose keeps the keys for 10 minutes and re-fetches on an unknown kid (a rotation), at most every 30 s.
    jwks = createRemoteJWKSet(jwksUri, { timeoutDuration: OIDC_REQUEST_TIMEOUT_MS });
    jwksByUri.set(jwksUri.href, jwks);
  }
  const offered = as.id_token_signing_alg_values_supported ?? ['RS256'];
  return {
    config: provider,
    as,
    client: { client_id: provider.clientId },
    clientAuth: oauth.ClientSecretBasic(provider.clientSecret),
    requestOptions,
    jwks,
    idTokenAlgorithms: offered.filter((alg) => ASYMMETRIC_ALGS.includes(alg)),
  };
}

/** An endpoint of the metadata as a URL, https unless plain http is allowed; anything else is a broken provider. */
export function endpoint(value: string | undefined, insecure: boolean): URL {
  if (value === undefined || !URL.canParse(value)) throw new ProviderMetadataError();
  const url = new URL(value);
  if (url.protocol !== 'https:' && !(insecure && url.protocol === 'http:')) throw new ProviderMetadataError();
  return url;
}

/** The provider's discovery document lacks an endpoint we need or names one we may not call. */
export class ProviderMetadataError extends Error {
  constructor() {
    super('the provider metadata lacks a usable endpoint');
    this.name = 'ProviderMetadataError';
  }
}

function metadata(issuer: string, options: oauth.DiscoveryRequestOptions, nowMs: number): Promise<oauth.AuthorizationServer> {
  const cached = discovered.get(issuer);
  if (cached !== undefined && cached.expiresAtMs > nowMs) return cached.metadata;
  const issuerUrl = new URL(issuer);
  // processDiscoveryResponse checks that the document names this very issuer.
  const pending = oauth.discoveryRequest(issuerUrl, options).then((response) => oauth.processDiscoveryResponse(issuerUrl, response));
  discovered.set(issuer, { expiresAtMs: nowMs + DISCOVERY_CACHE_MS, metadata: pending });
  pending.catch(() => {
    if (discovered.get(issuer)?.metadata === pending) discovered.delete(issuer);
  });
  return pending;
}
