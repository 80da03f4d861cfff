// The one normal form of what a pre-auth caller names a tenant by: a slug, or a host. Pure, so the route's schema and
// the tests use the same rules. Nothing here guesses: a name that is not already ASCII is refused, not converted.

/** A DNS label: lowercase letters, digits and inner hyphens, 1-63 characters; no dot, so a slug is never a domain. */
export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** The slug PostgreSQL gives an organisation until one is chosen (migrations/0010): not for an admin to take. */
const DERIVED_SLUG = /^o-[0-9a-f]{32}$/;

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** The last label starts with a letter (TLDs do, `xn--…` included), so an IPv4 address is never a host here. */
const LAST_LABEL = /^[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const MAX_HOST_LENGTH = 253;

export type NameProblem = 'shape' | 'not-ascii';

/** Lowercased; `undefined` unless it has the slug's shape. */
export function normalizeSlug(raw: string): string | undefined {
  const slug = raw.toLowerCase();
  return SLUG_PATTERN.test(slug) ? slug : undefined;
}

/** Whether an admin may choose this slug (the derived form stays PostgreSQL's). */
export function isChoosableSlug(slug: string): boolean {
  return SLUG_PATTERN.test(slug) && !DERIVED_SLUG.test(slug);
}

/**
 * Lowercased, one trailing dot dropped (the absolute form of the same name). Refused: anything outside ASCII
 * (`not-ascii`: IDNA names must come as punycode, `xn--…`), a port, a path, whitespace, an empty or over-long label, an
 * IP address (`shape`). One label is a valid host to ask about (it simply belongs to no one); stored custom domains
 * need two (`isCustomDomain`).
 */
export function normalizeHost(raw: string): { ok: true; host: string } | { ok: false; problem: NameProblem } {
  // eslint-disable-next-line no-control-regex
  if (/[^\x00-\x7f]/.test(raw)) return { ok: false, problem: 'not-ascii' };
  const host = (raw.endsWith('.') ? raw.slice(0, -1) : raw).toLowerCase();
  if (host.length === 0 || host.length > MAX_HOST_LENGTH) return { ok: false, problem: 'shape' };
  const labels = host.split('.');
  if (!labels.every((label) => LABEL.test(label)) || !LAST_LABEL.test(labels.at(-1)!)) return { ok: false, problem: 'shape' };
  return { ok: true, host };
}

/** A host an organisation may claim: normalized and at least two labels (the CHECK of organization_domains). */
export function isCustomDomain(host: string): boolean {
  const normalized = normalizeHost(host);
  return normalized.ok && normalized.host === host && host.includes('.');
}
