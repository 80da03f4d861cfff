// Tenant-wide invalidation: a new random generation for the organisation, one SET … EX; every entry keyed by the old one
// is unreachable from then on and expires by its own TTL. No SCAN, no list of keys: O(1) whatever the entry count.
import { bytesToHex, randomBytes } from '../../crypto/index.ts';
import type { Deps } from '../../deps.ts';
import { ORG_CACHE_GENERATION_TTL_SECONDS } from './policy.ts';

export interface GenerationBump {
  key: string;
  /** 32 random hex characters: never one an earlier generation had, so no old entry can come back. */
  value: string;
  ttlSeconds: number;
}

/** The SET to send (alone, or in a pipeline beside other invalidations): replacing the value is the whole bump. */
export function generationBump(deps: Pick<Deps, 'keys'>, organizationId: string): GenerationBump {
  return {
    key: deps.keys.orgCacheGeneration(organizationId),
    value: bytesToHex(randomBytes(16)),
    ttlSeconds: ORG_CACHE_GENERATION_TTL_SECONDS,
  };
}
