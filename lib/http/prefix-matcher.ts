// Which mount prefixes a path falls under, by segments: a cold start's first request asks this before any function is
// loaded, and a Hono router built for it cost several milliseconds of that start (docs/deploy.md#bundle-size-npm-run-size).

/**
 * Matches a path against prefixes in Hono's syntax (`/orgs/:orgId/members`): a path is under a prefix when it is the
 * prefix or continues it after a `/`, each `:name` standing for one non-empty segment, as Hono's routers match
 * `prefix` and `prefix/*`. Returns a function giving the indexes of the prefixes a path is under, in their order.
 */
export function prefixMatcher(prefixes: readonly string[]): (path: string) => number[] {
  const split = prefixes.map((prefix) => prefix.split('/').slice(1));
  return (path) => {
    const segments = path.split('/').slice(1);
    const under: number[] = [];
    split.forEach((prefix, index) => {
      if (prefix.length > segments.length) return;
      const matches = prefix.every((part, at) => (part.startsWith(':') ? segments[at] !== '' : part === segments[at]));
      if (matches) under.push(index);
    });
    return under;
  };
}
