// auth.handoff's client authentication: an app configured with a client secret (SSO_HANDOFF_AUDIENCES `<app>:<sha256>`)
// proves itself at the exchange with `Authorization: Basic base64(<app>:<secret>)`, as OAuth's client_secret_basic does.
import { HANDOFF_CLIENT_SECRET_PATTERN } from '../../config/index.ts';
import { sha256Hex, timingSafeEqual } from '../../crypto/index.ts';

export type HandoffClientRefusal = 'missing' | 'malformed' | 'another-app' | 'wrong-secret';

export type HandoffClientVerdict =
  /** `authenticated`: false when the app has no secret configured (anyone holding the code may exchange it). */
  { ok: true; authenticated: boolean } | { ok: false; reason: HandoffClientRefusal };

/**
 * Checked before the code is consumed, so a caller without the secret cannot even spend a code it stole. The header
 * must name the same app as the body; a value not of a secret's shape is refused before it is hashed; the digest is
 * compared in constant time. An app without a configured secret ignores the header.
 */
export async function authenticateHandoffClient(
  digests: ReadonlyMap<string, string>,
  audience: string,
  authorization: string | undefined,
): Promise<HandoffClientVerdict> {
  const expected = digests.get(audience);
  if (expected === undefined) return { ok: true, authenticated: false };
  const encoded = /^Basic ([A-Za-z0-9+/]+={0,2})$/.exec(authorization ?? '')?.[1];
  if (encoded === undefined) return { ok: false, reason: 'missing' };
  let decoded: string;
  try {
    decoded = atob(encoded);
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  const colon = decoded.indexOf(':');
  if (colon < 0) return { ok: false, reason: 'malformed' };
  const secret = decoded.slice(colon + 1);
  if (!HANDOFF_CLIENT_SECRET_PATTERN.test(secret)) return { ok: false, reason: 'malformed' };
  if (decoded.slice(0, colon) !== audience) return { ok: false, reason: 'another-app' };
  return timingSafeEqual(await sha256Hex(secret), expected) ? { ok: true, authenticated: true } : { ok: false, reason: 'wrong-secret' };
}
