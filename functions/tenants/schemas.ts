// Request and response schemas of the tenant routes: the public resolve, and an admin's settings, branding and domains.
import * as z from 'zod';
import { uuidId } from '../../lib/http/route-schemas.ts';
import {
  isChoosableSlug,
  isCustomDomain,
  MAX_CLAIMABLE_DOMAIN_LENGTH,
  MAX_DOMAINS_PER_ORGANIZATION,
  normalizeHost,
  normalizeSlug,
  orgSettingsSchema,
  publicTenantSchema,
} from '../../lib/runtime/tenants/index.ts';

const hostMessage = (raw: string): string | undefined => {
  const normalized = normalizeHost(raw);
  if (normalized.ok) return undefined;
  return normalized.problem === 'not-ascii'
    ? 'a host in ASCII: an internationalised name as punycode (xn--…); nothing is converted'
    : 'a host name: letters, digits, "-" and ".", no port, no path, not an IP address';
};

export const resolveQuery = z
  .strictObject({
    slug: z.string().max(63).optional().describe("The tenant's slug (case-insensitive)."),
    domain: z.string().max(254).optional().describe('A custom domain, matched exactly (case-insensitive, a trailing dot dropped).'),
  })
  .superRefine((query, ctx) => {
    if ((query.slug === undefined) === (query.domain === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'exactly one of slug and domain', path: [] });
      return;
    }
    if (query.slug !== undefined && normalizeSlug(query.slug) === undefined) {
      ctx.addIssue({ code: 'custom', message: 'letters, digits and inner "-", at most 63', path: ['slug'] });
    }
    const problem = query.domain === undefined ? undefined : hostMessage(query.domain);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem, path: ['domain'] });
  });

export const resolveResponse = z.object({ tenant: publicTenantSchema });

export const settingsResponse = z.object({ settings: orgSettingsSchema });

const printable = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .regex(/^[^\p{Cc}]+$/u, 'no control characters');

export const brandingBody = z
  .strictObject({
    slug: z
      .string()
      .max(63)
      .refine(isChoosableSlug, 'lowercase letters, digits and inner "-", at most 63 (not of the o-<hex> form PostgreSQL gives)')
      .optional(),
    displayName: printable(100).optional(),
    logoUrl: z
      .url({ protocol: /^https$/ })
      .max(2048)
      .nullable()
      .optional()
      .describe('https only; null removes it.'),
    primaryColor: z
      .string()
      .regex(/^#[0-9a-f]{6}$/, 'a colour as #rrggbb, lowercase hex')
      .nullable()
      .optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), 'at least one of slug, displayName, logoUrl, primaryColor');

export const brandingResponse = z.object({
  branding: z.object({
    slug: z.string(),
    displayName: z.string(),
    logoUrl: z.string().nullable(),
    primaryColor: z.string().nullable(),
  }),
});

/** A domain an organisation may claim: a host of two labels or more, short enough for its challenge name to be one. */
const claimableDomain = z
  .string()
  .max(254)
  .superRefine((raw, ctx) => {
    const problem = hostMessage(raw);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    else if (!isCustomDomain((normalizeHost(raw) as { host: string }).host)) {
      ctx.addIssue({ code: 'custom', message: 'a domain of at least two labels (example.com)' });
    } else if ((normalizeHost(raw) as { host: string }).host.length > MAX_CLAIMABLE_DOMAIN_LENGTH) {
      ctx.addIssue({ code: 'custom', message: `at most ${MAX_CLAIMABLE_DOMAIN_LENGTH} characters (its TXT challenge name must fit 253)` });
    }
  });

export const domainsBody = z.strictObject({
  domains: z
    .array(claimableDomain)
    .max(MAX_DOMAINS_PER_ORGANIZATION)
    .describe(
      'The whole set, verified and pending: domains left out are removed. Lowercased, a trailing dot dropped. A new one is a pending claim until verified.',
    ),
});

export const domainParams = z.strictObject({
  orgId: uuidId,
  domain: claimableDomain.describe('The claimed domain (case-insensitive, a trailing dot dropped).'),
});

const domainView = z.object({
  domain: z.string(),
  status: z.enum(['verified', 'pending']).describe('verified: it resolves; pending: it waits for its TXT record and resolves nowhere.'),
  verifiedAt: z.iso
    .datetime()
    .nullable()
    .describe('When its TXT record proved it; null while pending, and for a domain held before verification existed.'),
  txtRecord: z
    .object({
      name: z.string().describe('`_runstate-challenge.<domain>`'),
      value: z.string().describe("`runstate-verification=<token>`: this claim's own token."),
    })
    .nullable()
    .describe('The TXT record to publish, while pending; null once verified.'),
});

export const domainsResponse = z.object({ domains: z.array(domainView) });

export const verifyDomainResponse = z.object({ domain: domainView });

export const memberCountQuery = z.strictObject({
  locationId: uuidId.optional().describe('An Outlet of the organisation: who can act there (a role there or organisation-wide).'),
});

export const memberCountResponse = z.object({ organizationId: z.uuid(), locationId: z.uuid().nullable(), count: z.number().int() });
