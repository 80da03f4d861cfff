// Where a slug's or a host's resolve entry and remembered miss live: keyed hashes under platform:{tenant-resolve}.
import { hashSegment, type HashedSegment } from '../../keys/index.ts';
import type { Deps } from '../../deps.ts';
import type { ResolveQuery } from './lookup.ts';

/** The resolve limiter's scope: the platform (no tenant yet), under the hash tag of the cache its script reads. */
export const RESOLVE_SCOPE = { kind: 'platform', tag: 'tenant-resolve' } as const;

export interface ResolveKeys {
  entry: string;
  misses: string;
  /** The one resolve generation (every name's): a fill writes only under the one its read saw. */
  generation: string;
  /** The keyed hash: the entry key's last segment and the member in the miss set. */
  member: HashedSegment;
}

/**
 * The kind is inside the hashed input as well as in the key ("slug:acme" vs "domain:acme"): a domain equal to another
 * tenant's slug lands on another key and another member, so neither can alias into the other's entry.
 */
export async function resolveKeys(deps: Pick<Deps, 'keys' | 'config'>, query: ResolveQuery): Promise<ResolveKeys> {
  const name = query.kind === 'slug' ? query.slug : query.host;
  const member = await hashSegment(deps.config.indexHashKey, `${query.kind}:${name}`);
  const generation = deps.keys.tenantResolveGeneration();
  return query.kind === 'slug'
    ? { entry: deps.keys.tenantResolveSlug(member), misses: deps.keys.tenantResolveSlugMisses(), generation, member }
    : { entry: deps.keys.tenantResolveDomain(member), misses: deps.keys.tenantResolveDomainMisses(), generation, member };
}
