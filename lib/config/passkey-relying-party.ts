// Reads the passkeys' relying party: PASSKEY_RP_ID (the domain WebAuthn credentials are scoped to), PASSKEY_ORIGINS (the
// exact origins a ceremony may run on) and PASSKEY_RP_NAME. Problems name the variable and the rule, never a value.
import type { AppEnv } from './schema.ts';

export interface PasskeyRelyingParty {
  /** The RP ID: a registrable domain, or `localhost` (a browser refuses an IP address here). */
  rpId: string;
  /** The name an authenticator shows beside the account. */
  rpName: string;
  /** Every origin a clientDataJSON may name, exact `scheme://host[:port]`; each host is the RP ID or under it. */
  origins: readonly string[];
}

const MAX_ORIGINS = 20;
/** Lower-case DNS labels joined by dots; no port, no scheme, no trailing dot. */
const RP_ID = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
const IPV4 = /^\d+(?:\.\d+){3}$/;

/**
 * Dev, unset: `localhost` on the port the app listens on (`npm start`). Outside dev both variables are required: a
 * deployment that guessed its own origin would accept ceremonies of whichever site its guess named.
 */
export function parsePasskeyRelyingParty(
  raw: { rpId: string | undefined; origins: string | undefined; rpName: string | undefined },
  appEnv: AppEnv,
  port: number,
): { relyingParty: PasskeyRelyingParty | undefined; problems: string[] } {
  const rpName = raw.rpName ?? 'runstate';
  if (raw.rpId === undefined && raw.origins === undefined && appEnv === 'dev') {
    return { relyingParty: { rpId: 'localhost', rpName, origins: [`http://localhost:${port}`] }, problems: [] };
  }
  const problems: string[] = [];
  if (raw.rpId === undefined) problems.push('PASSKEY_RP_ID: required outside dev (the domain passkeys are registered for)');
  else if (!RP_ID.test(raw.rpId) || IPV4.test(raw.rpId))
    problems.push('PASSKEY_RP_ID: a lower-case domain name (no scheme, port or IP address), e.g. example.com');
  if (raw.origins === undefined) problems.push('PASSKEY_ORIGINS: required outside dev (the exact origins of the sign-in pages)');
  const origins = raw.origins === undefined ? [] : raw.origins.split(',').map((entry) => entry.trim());
  if (origins.length > MAX_ORIGINS) problems.push(`PASSKEY_ORIGINS: at most ${MAX_ORIGINS} origins`);
  const production = appEnv === 'staging' || appEnv === 'prod';
  origins.forEach((entry, index) => {
    const at = `PASSKEY_ORIGINS[${index}]`;
    const url = exactOrigin(entry);
    if (url === undefined) {
      problems.push(`${at}: an origin is scheme://host[:port], http or https, lower-case, with no path, query, fragment or user`);
      return;
    }
    // WebAuthn itself refuses an RP ID that is not the origin's host or a parent of it; refusing here says so at start.
    if (raw.rpId !== undefined && url.hostname !== raw.rpId && !url.hostname.endsWith(`.${raw.rpId}`))
      problems.push(`${at}: its host must be PASSKEY_RP_ID or a subdomain of it`);
    if (production && url.protocol !== 'https:') problems.push(`${at}: must be https in staging/prod`);
  });
  if (problems.length > 0 || raw.rpId === undefined) return { relyingParty: undefined, problems };
  return { relyingParty: { rpId: raw.rpId, rpName, origins }, problems };
}

function exactOrigin(entry: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  return url.origin === entry ? url : undefined;
}
