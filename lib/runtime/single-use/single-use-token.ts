// The token of a single-use kind: a prefix naming the kind and 256 random bits; only its SHA-256 reaches Redis (the key).
import { randomToken, sha256Hex } from '../../crypto/index.ts';
import type { Keyspace, SingleUseKind } from '../../keys/index.ts';

const PREFIXES: Record<SingleUseKind, string> = {
  'password-reset': 'rsp_',
  'sso-handoff': 'rsh_',
  'oidc-state': 'rso_',
  'console-dev-login': 'rsd_',
};
const BODY = /^[A-Za-z0-9_-]{43}$/;

export function newSingleUseToken(kind: SingleUseKind): string {
  return PREFIXES[kind] + randomToken(32);
}

/** The key a token of `kind` lives under, or undefined for anything that is not such a token (never looked up). */
export async function singleUseKey(keys: Keyspace, kind: SingleUseKind, token: string): Promise<string | undefined> {
  const prefix = PREFIXES[kind];
  if (typeof token !== 'string' || !token.startsWith(prefix) || !BODY.test(token.slice(prefix.length))) return undefined;
  const digest = await sha256Hex(token);
  if (kind === 'password-reset') return keys.passwordResetToken(digest);
  if (kind === 'sso-handoff') return keys.ssoHandoffCode(digest);
  if (kind === 'console-dev-login') return keys.consoleDevLogin(digest);
  return keys.oidcState(digest);
}
