// Parses SSO_HANDOFF_AUDIENCES: the apps a session may be handed to, as `<app>` or `<app>:<sha256 hex of its client
// secret>` entries; an app with a digest must prove itself at the exchange. Problems name the entry and the rule, never a value.
import type { AppEnv } from './schema.ts';

export interface HandoffAudiences {
  /** Every app id, in the order configured. */
  audiences: string[];
  /** The apps that must present a client secret, each with the SHA-256 (lowercase hex) of it; a Map, so no app id can alias an Object property. */
  clientSecretDigests: ReadonlyMap<string, string>;
}

/** An app's client secret: `rshc_` and 43 base64url characters (32 random bytes); anything else is refused unread. */
export const HANDOFF_CLIENT_SECRET_PATTERN = /^rshc_[A-Za-z0-9_-]{43}$/;

const APP_ID = /^[a-z][a-z0-9.-]{0,62}$/;
const DIGEST = /^[0-9a-f]{64}$/;
const MAX_AUDIENCES = 20;

/**
 * Digests staging and prod refuse because their secret is public: the empty string's, and the example secret's of
 * docs/deploy.md (`rshc_` + 43 × "A").
 */
const PUBLISHED_DIGESTS = new Set([
  'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  'e433feff048bf7326f8a73db80ac45472242e31efcb74362f39c8ee28a0c3491',
]);

export function parseHandoffAudiences(value: string, appEnv: AppEnv): HandoffAudiences & { problems: string[] } {
  const none = { audiences: [], clientSecretDigests: new Map<string, string>() };
  const production = appEnv === 'staging' || appEnv === 'prod';
  const entries = value.split(',').map((entry) => entry.trim());
  if (entries.length > MAX_AUDIENCES) return { ...none, problems: [`SSO_HANDOFF_AUDIENCES: at most ${MAX_AUDIENCES} apps`] };
  const problems: string[] = [];
  const audiences: string[] = [];
  const digests = new Map<string, string>();
  entries.forEach((entry, index) => {
    const at = `SSO_HANDOFF_AUDIENCES[${index}]`;
    // A pasted secret instead of its digest is the likeliest mistake, and the worst one to echo back.
    if (entry.includes('rshc_')) {
      problems.push(`${at}: looks like a client secret; configure its SHA-256 (hex), never the secret`);
      return;
    }
    const colon = entry.indexOf(':');
    const app = colon < 0 ? entry : entry.slice(0, colon);
    if (!APP_ID.test(app)) {
      problems.push(`${at}: <app>[:<sha256 hex>], the app id a lowercase letter, then lowercase letters, digits, "." or "-", at most 63`);
      return;
    }
    if (audiences.includes(app)) problems.push(`${at}: the app ${app} is listed twice`);
    audiences.push(app);
    if (colon < 0) return;
    const digest = entry.slice(colon + 1);
    if (!DIGEST.test(digest)) {
      problems.push(`${at}: the digest must be 64 lowercase hex characters (SHA-256 of the app's client secret)`);
      return;
    }
    // One secret for two apps would let either exchange the other's codes.
    if ([...digests.values()].includes(digest)) problems.push(`${at}: the same digest is listed twice; every app has a secret of its own`);
    if (production && PUBLISHED_DIGESTS.has(digest)) problems.push(`${at}: the digest of a published secret is refused in staging/prod`);
    digests.set(app, digest);
  });
  return problems.length > 0 ? { ...none, problems } : { audiences, clientSecretDigests: digests, problems };
}
