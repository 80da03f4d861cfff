// A host resolver over DNS-over-HTTPS (A and AAAA through the resolver's JSON API), for runtimes with no resolver of their own (Workers).
import { lookupRecords } from './doh-txt.ts';
import type { HostResolver } from './host-resolver.ts';

/**
 * Every A and AAAA address of the name, both asked at once. A resolver that fails either question gives no address,
 * so the caller refuses the name rather than judge it by half its addresses.
 */
export function dohHostResolver(resolverUrl: string, options: { fetch?: typeof fetch } = {}): HostResolver {
  return async (hostname) => {
    const [v4, v6] = await Promise.all([
      lookupRecords(resolverUrl, hostname, 'A', options),
      lookupRecords(resolverUrl, hostname, 'AAAA', options),
    ]);
    if (!v4.ok || !v6.ok) return [];
    return [...v4.records, ...v6.records];
  };
}
