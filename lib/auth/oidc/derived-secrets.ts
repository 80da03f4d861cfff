// The PKCE verifier and the nonce of one OIDC sign-in, derived from its state under a server key: never stored, so a
// copy of Redis (or of anything else) holds neither, and only this deployment can recompute them from the state.
import { base64urlEncode, hmacSha256 } from '../../crypto/index.ts';

// Distinct labels: knowing the nonce (it travels in the URL and comes back in the ID token) reveals nothing of the verifier.
const VERIFIER_LABEL = 'runstate/oidc/pkce-verifier/v1\n';
const NONCE_LABEL = 'runstate/oidc/nonce/v1\n';

/** RFC 7636 code_verifier: 43 characters of base64url (256 bits), HMAC-SHA256(key, label ‖ state). */
export async function pkceVerifierFor(key: string, state: string): Promise<string> {
  return base64urlEncode(await hmacSha256(key, VERIFIER_LABEL + state));
}

/** The nonce sent with the authorization request and expected back in the ID token; 43 characters of base64url. */
export async function nonceFor(key: string, state: string): Promise<string> {
  return base64urlEncode(await hmacSha256(key, NONCE_LABEL + state));
}
