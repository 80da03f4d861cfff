// Parses OPERATOR_TOKEN_HASHES: who may act on every tenant (suspend, reactivate, forget its cache), as
// `<operatorId>:<sha256 hex of the operator's bearer secret>` entries. Problems name the entry and the rule, never a value.
import type { AppEnv } from './schema.ts';

export interface OperatorCredential {
  /** Who the operator is: what audit rows and logs name (never the secret). */
  id: string;
  /** SHA-256 (lowercase hex) of the operator's bearer secret; the secret itself is never configured anywhere. */
  digest: string;
}

/** An operator's bearer secret: `rsop_` and 43 base64url characters (32 random bytes); anything else is refused unread. */
export const OPERATOR_SECRET_PATTERN = /^rsop_[A-Za-z0-9_-]{43}$/;

const OPERATOR_ID = /^[a-z][a-z0-9._-]{0,31}$/;
const DIGEST = /^[0-9a-f]{64}$/;
const MAX_OPERATORS = 20;

/**
 * Digests staging and prod refuse because their secret is public: the empty string's, and the example secret's of
 * docs/deploy.md (`rsop_` + 43 × "A"). A test can add nothing here: test secrets are random per run.
 */
const PUBLISHED_DIGESTS = new Set([
  'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  '907af970f1eed5fd9b430ec1a5b09a72df1c136efec1cc7329a7458ca722eb1f',
]);

export function parseOperatorTokens(value: string, appEnv: AppEnv): { operators: OperatorCredential[]; problems: string[] } {
  const production = appEnv === 'staging' || appEnv === 'prod';
  const entries = value.split(',').map((entry) => entry.trim());
  const problems: string[] = [];
  if (entries.length > MAX_OPERATORS) return { operators: [], problems: [`OPERATOR_TOKEN_HASHES: at most ${MAX_OPERATORS} operators`] };
  const operators: OperatorCredential[] = [];
  const ids = new Set<string>();
  const digests = new Set<string>();
  entries.forEach((entry, index) => {
    const at = `OPERATOR_TOKEN_HASHES[${index}]`;
    // A pasted secret instead of its digest is the likeliest mistake, and the worst one to echo back.
    if (entry.includes('rsop_')) {
      problems.push(`${at}: looks like an operator secret; configure its SHA-256 (hex), never the secret`);
      return;
    }
    const colon = entry.indexOf(':');
    const id = colon < 0 ? '' : entry.slice(0, colon);
    const digest = colon < 0 ? '' : entry.slice(colon + 1);
    if (!OPERATOR_ID.test(id)) {
      problems.push(
        `${at}: <operatorId>:<sha256 hex>, the id lowercase letters, digits, ".", "_" or "-", starting with a letter, at most 32`,
      );
      return;
    }
    if (!DIGEST.test(digest)) {
      problems.push(`${at}: the digest must be 64 lowercase hex characters (SHA-256 of the operator's secret)`);
      return;
    }
    if (ids.has(id)) problems.push(`${at}: the operator id ${id} is listed twice`);
    // One secret for two names would make the audit trail name either of them.
    if (digests.has(digest)) problems.push(`${at}: the same digest is listed twice; every operator has a secret of their own`);
    if (production && PUBLISHED_DIGESTS.has(digest)) problems.push(`${at}: the digest of a published secret is refused in staging/prod`);
    ids.add(id);
    digests.add(digest);
    operators.push({ id, digest });
  });
  return problems.length > 0 ? { operators: [], problems } : { operators, problems };
}
