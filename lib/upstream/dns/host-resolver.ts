// The host resolver Deps carries: every address a name resolves to, so a caller can check them before connecting.

/**
 * Every address a host name resolves to (IPv4 and IPv6, as the resolver writes them); none when it does not resolve.
 * On Node and Lambda the entries pass `dns.promises.lookup` with `all` (functions/entries/node-resolve-host.ts); a
 * runtime without one (Workers) gets noHostResolver, under which nothing resolves.
 */
export type HostResolver = (hostname: string) => Promise<readonly string[]>;

/** The resolver of a runtime that has none: nothing resolves, so whatever needs an address is refused. */
export const noHostResolver: HostResolver = () => Promise.resolve([]);
