// Tenant fixtures for the resolve, settings and operator tests: an organisation with a chosen slug, domains, branding,
// state and server-only fields, written straight into PostgreSQL; and a resolve request from a named address.
import { randomBytes } from 'node:crypto';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import type { TestStack } from './stack.ts';

export interface TenantFixture {
  slug?: string;
  domains?: string[];
  displayName?: string;
  state?: 'active' | 'suspended' | 'deleted';
  suspensionReason?: string;
  integrationSettings?: Record<string, unknown>;
  featureFlags?: Record<string, unknown>;
}

/** A name nobody else in the run's shared database has. */
export const unique = (prefix: string): string => `${prefix}-${randomBytes(5).toString('hex')}`;

/** A fresh client address per call, so tests never share a limiter window. */
export const freshIp = (): string => `10.${[...randomBytes(3)].join('.')}`;

export async function seedTenant(stack: TestStack, fixture: TenantFixture = {}) {
  const org = await stack.seedOrganization();
  const slug = fixture.slug ?? unique('t');
  await stack.db.query(
    `UPDATE organizations SET slug = $2, display_name = $3, state = $4, suspension_reason = $5,
            integration_settings = $6::jsonb, feature_flags = $7::jsonb WHERE id = $1`,
    [
      org.organizationId,
      slug,
      fixture.displayName ?? `Brand ${slug}`,
      fixture.state ?? 'active',
      fixture.state === 'suspended' ? (fixture.suspensionReason ?? 'unpaid invoices') : null,
      JSON.stringify(fixture.integrationSettings ?? {}),
      JSON.stringify(fixture.featureFlags ?? {}),
    ],
  );
  for (const domain of fixture.domains ?? []) {
    await stack.db.query('INSERT INTO organization_domains (domain, organization_id) VALUES ($1, $2)', [domain, org.organizationId]);
  }
  return { ...org, slug, domains: fixture.domains ?? [] };
}

export function resolve(stack: Pick<TestStack, 'request'>, query: { slug?: string; domain?: string }, ip: string): Promise<Response> {
  const params = new URLSearchParams(Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined));
  return stack.request('GET', `/public/tenants/resolve?${params.toString()}`, { headers: { [TEST_CLIENT_IP_HEADER]: ip } });
}

/** Every key of this stack's namespace, with its raw value (strings, sorted sets as members and scores). */
export async function dumpNamespace(stack: TestStack): Promise<Array<{ key: string; value: string }>> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await stack.redis.scan(cursor, 'MATCH', stack.deps.keys.scanPattern, 'COUNT', 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return Promise.all(
    keys.map(async (key) => {
      const type = await stack.redis.type(key);
      if (type === 'zset') return { key, value: (await stack.redis.zrange(key, 0, -1, 'WITHSCORES')).join(' ') };
      if (type === 'string') return { key, value: (await stack.redis.get(key)) ?? '' };
      return { key, value: (await stack.redis.dumpBuffer(key))?.toString('latin1') ?? '' };
    }),
  );
}
