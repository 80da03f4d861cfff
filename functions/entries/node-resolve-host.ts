// The host resolver of the Node and Lambda entries: every address the system resolver gives for a name.
import { lookup } from 'node:dns/promises';
import type { HostResolver } from '../../lib/upstream/dns/host-resolver.ts';

/** All addresses, IPv4 and IPv6, in the resolver's order; a name that does not resolve gives none. */
export const nodeResolveHost: HostResolver = async (hostname) => {
  try {
    return (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);
  } catch {
    return [];
  }
};
