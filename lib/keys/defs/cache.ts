// An organisation's read-through cache: the generation inside every entry's key, and the entries with their TTLs.
import * as z from 'zod';
import { defineKey } from '../define-key.ts';
import { generation, scopeIdAgain, uuidOrAll } from '../id-segments.ts';
import { json, text } from '../key-values.ts';
import { orgScope } from '../scopes.ts';

/** An organisation's settings object (the partner-config shape): read on every settings screen, changed rarely. */
export const ORG_SETTINGS_TTL_SECONDS = 300;
/** A member count: informational, and not invalidated by an accepted invite, so its TTL is the staleness it may have. */
export const MEMBER_COUNT_TTL_SECONDS = 60;
/**
 * The organisation's cache generation lives this long after a bump: far longer than any entry (300 s) plus a request
 * in flight, so once it lapses no entry of the generation "0" written before the bump can still be alive.
 */
export const ORG_CACHE_GENERATION_TTL_SECONDS = 3_600;

/** The whitelist: what an organisation's admin sees and the cache holds. No suspension reason, integration settings or flags. */
export const orgSettingsSchema = z.lazy(() =>
  z.strictObject({
    organizationId: z.uuid(),
    slug: z.string().min(1).max(63),
    state: z.enum(['active', 'suspended']),
    branding: z.strictObject({
      displayName: z.string().min(1).max(100),
      logoUrl: z.string().max(2048).nullable(),
      primaryColor: z.string().max(7).nullable(),
    }),
    domains: z.array(z.string().max(253)).max(20),
  }),
);
export type OrgSettings = z.infer<typeof orgSettingsSchema>;

export const memberCountSchema = z.lazy(() =>
  z.strictObject({
    organizationId: z.uuid(),
    locationId: z.uuid().nullable(),
    count: z.number().int().min(0),
  }),
);
export type MemberCount = z.infer<typeof memberCountSchema>;

export const cacheKeys = {
  orgCacheGeneration: defineKey({
    scope: orgScope,
    domain: 'cache',
    purpose: 'generation',
    id: [scopeIdAgain('orgId')],
    ttl: { seconds: ORG_CACHE_GENERATION_TTL_SECONDS },
    value: text(/^[0-9a-f]{32}$/, 'a generation (32 random hex)'),
  }),
  orgSettingsCache: defineKey({
    scope: orgScope,
    domain: 'cache',
    purpose: 'settings',
    id: [generation()],
    ttl: { seconds: ORG_SETTINGS_TTL_SECONDS },
    value: json(orgSettingsSchema),
  }),
  orgMemberCountCache: defineKey({
    scope: orgScope,
    domain: 'cache',
    purpose: 'member-count',
    // `locationId` null: the whole organisation's count.
    id: [generation(), uuidOrAll('locationId')],
    ttl: { seconds: MEMBER_COUNT_TTL_SECONDS },
    value: json(memberCountSchema),
  }),
};
