// Parses CORS_ORIGINS: the browser origins allowed to call with credentials, as exact `scheme://host[:port]` values.
// Problems name the entry and the rule, never a value.
import type { AppEnv } from './schema.ts';

const MAX_ORIGINS = 20;

export function parseCorsOrigins(value: string, appEnv: AppEnv): { origins: string[]; problems: string[] } {
  const production = appEnv === 'staging' || appEnv === 'prod';
  const entries = value.split(',').map((entry) => entry.trim());
  if (entries.length > MAX_ORIGINS) return { origins: [], problems: [`CORS_ORIGINS: at most ${MAX_ORIGINS} origins`] };
  const problems: string[] = [];
  const origins: string[] = [];
  entries.forEach((entry, index) => {
    const at = `CORS_ORIGINS[${index}]`;
    // The answer allows credentials, and a wildcard with credentials would hand every site the caller's session.
    if (entry.includes('*')) {
      problems.push(`${at}: no wildcard; list each origin exactly (credentials are allowed, so "*" is refused)`);
      return;
    }
    const origin = exactOrigin(entry);
    if (origin === undefined) {
      problems.push(`${at}: an origin is scheme://host[:port], http or https, with no path, query, fragment or user, lowercase`);
      return;
    }
    // Over plain http anyone on the path can inject script into that origin and call here as the user.
    if (production && origin.startsWith('http:')) problems.push(`${at}: must be https in staging/prod`);
    if (origins.includes(origin)) problems.push(`${at}: listed twice`);
    origins.push(origin);
  });
  return problems.length > 0 ? { origins: [], problems } : { origins, problems };
}

/** The entry when it is already an origin exactly as a browser sends it in `Origin` (so an exact match can work). */
function exactOrigin(entry: string): string | undefined {
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  return url.origin === entry ? entry : undefined;
}
