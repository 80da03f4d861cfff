// Turns what oauth4webapi or jose threw into one short word for the log and the audit row. Their messages and causes
// are never passed on: they quote claims, expected nonces and response bodies.
import * as oauth from 'oauth4webapi';
import { errors as joseErrors } from 'jose';
import { ProviderMetadataError } from './provider-client.ts';

export type OidcFailureReason =
  | 'state'
  /** A live state presented without the binding cookie of the browser that started it (left unspent). */
  | 'browser'
  | 'provider-mismatch'
  /** The state's organisation no longer lists this provider (oidc_provider_organizations). */
  | 'provider-not-allowed'
  | 'provider-error'
  | 'provider-unavailable'
  | 'response'
  | 'code'
  | 'client-auth'
  | 'issuer'
  | 'audience'
  | 'nonce'
  | 'expired'
  | 'signature'
  | 'email-unverified'
  | 'unlinked';

export function failureReason(error: unknown): OidcFailureReason {
  if (error instanceof oauth.AuthorizationResponseError) return 'provider-error';
  if (error instanceof oauth.ResponseBodyError)
    return error.error === 'invalid_grant' ? 'code' : error.status === 401 ? 'client-auth' : 'response';
  if (error instanceof oauth.WWWAuthenticateChallengeError) return 'client-auth';
  if (error instanceof oauth.OperationProcessingError) {
    if (error.code === oauth.JWT_TIMESTAMP_CHECK) return 'expired';
    if (error.code === oauth.JWT_CLAIM_COMPARISON) return claimReason((error.cause as { claim?: unknown } | undefined)?.claim);
    if (error.code === oauth.HTTP_REQUEST_FORBIDDEN || error.code === oauth.REQUEST_PROTOCOL_FORBIDDEN) return 'provider-unavailable';
    return 'response';
  }
  if (error instanceof ProviderMetadataError) return 'provider-unavailable';
  if (error instanceof joseErrors.JWTExpired) return 'expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed) return claimReason(error.claim);
  if (
    error instanceof joseErrors.JWSSignatureVerificationFailed ||
    error instanceof joseErrors.JWKSNoMatchingKey ||
    error instanceof joseErrors.JWKSMultipleMatchingKeys ||
    error instanceof joseErrors.JOSEAlgNotAllowed ||
    error instanceof joseErrors.JWSInvalid ||
    error instanceof joseErrors.JWTInvalid
  )
    return 'signature';
  // fetch's TypeError (refused, reset), the deadline's TimeoutError / AbortError, a JWKS that timed out or is no JWKS.
  return 'provider-unavailable';
}

function claimReason(claim: unknown): OidcFailureReason {
  if (claim === 'nonce') return 'nonce';
  if (claim === 'aud' || claim === 'azp') return 'audience';
  if (claim === 'iss') return 'issuer';
  if (claim === 'exp' || claim === 'iat' || claim === 'nbf') return 'expired';
  return 'response';
}
