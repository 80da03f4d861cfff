// Parses OIDC_PROVIDERS: a JSON array of the OpenID providers sign-in may use. It holds client secrets, so every
// problem names the entry, the field and the rule, never a value (not even JSON.parse's, which quotes the input).
import * as z from 'zod';
import type { AppEnv } from './schema.ts';

export interface OidcProviderConfig {
  /** The `{provider}` of /auth/oidc/{provider}/…; also what audit rows name. */
  id: string;
  /** The issuer identifier: discovery is `<issuer>/.well-known/openid-configuration`, and the ID token's `iss`. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Registered at the provider; built from configuration, never from the request's Host. */
  redirectUri: string;
}

const PROVIDER_ID = /^[a-z][a-z0-9-]{0,31}$/;
const MAX_PROVIDERS = 20;

const url = (rule: string) => z.string({ error: rule }).max(2048, { error: 'at most 2048 characters' }).refine(isHttpUrl, { error: rule });

const providerSchema = () =>
  z.strictObject(
    {
      id: z
        .string({ error: 'a string' })
        .regex(PROVIDER_ID, { error: 'lowercase letters, digits and "-", starting with a letter, at most 32' }),
      issuer: url('an http(s) URL without query or fragment'),
      clientId: z.string({ error: 'a string' }).min(1, { error: 'must not be empty' }).max(255, { error: 'at most 255 characters' }),
      clientSecret: z
        .string({ error: 'a string' })
        .min(16, { error: 'at least 16 characters' })
        .max(512, { error: 'at most 512 characters' }),
      redirectUri: url('an http(s) URL without query or fragment'),
    },
    { error: 'an object of id, issuer, clientId, clientSecret and redirectUri, nothing else' },
  );

// Built on the first parse (z.lazy), not at import: the configuration module is evaluated by every cold start.
const providersSchema = z.lazy(() =>
  z.array(providerSchema(), { error: 'a JSON array of providers' }).max(MAX_PROVIDERS, { error: `at most ${MAX_PROVIDERS} providers` }),
);

/**
 * The providers, or the problems (each `OIDC_PROVIDERS[i].field: rule`). Staging and prod need https issuers and
 * redirect URIs off loopback; dev and test may use http only on loopback (the local provider, docs/design/oidc.md#oidc-sign-in).
 */
export function parseOidcProviders(value: string, appEnv: AppEnv): { providers: OidcProviderConfig[]; problems: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch {
    return { providers: [], problems: ['OIDC_PROVIDERS: not valid JSON'] };
  }
  const parsed = providersSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${name(issue.path)}: ${issue.message}`);
    return { providers: [], problems: [...new Set(problems)] };
  }
  const problems: string[] = [];
  const production = appEnv === 'staging' || appEnv === 'prod';
  const seen = new Set<string>();
  parsed.data.forEach((provider, index) => {
    if (seen.has(provider.id)) problems.push(`OIDC_PROVIDERS[${index}].id: provider ids must be unique`);
    seen.add(provider.id);
    for (const field of ['issuer', 'redirectUri'] as const) {
      const target = new URL(provider[field]);
      const where = `OIDC_PROVIDERS[${index}].${field}`;
      if (production && loopback(target)) problems.push(`${where}: a loopback host is not allowed in staging/prod`);
      if (production && target.protocol !== 'https:') problems.push(`${where}: must be https in staging/prod`);
      if (!production && target.protocol !== 'https:' && !loopback(target)) problems.push(`${where}: http is allowed only on loopback`);
    }
    // The callback route is the one for this provider: a redirect URI naming another route would never complete.
    if (!new URL(provider.redirectUri).pathname.endsWith(`/auth/oidc/${provider.id}/callback`)) {
      problems.push(`OIDC_PROVIDERS[${index}].redirectUri: its path must end with /auth/oidc/<id>/callback`);
    }
  });
  return { providers: problems.length === 0 ? parsed.data : [], problems };
}

function name(path: readonly PropertyKey[]): string {
  const [index, field] = path;
  if (index === undefined) return 'OIDC_PROVIDERS';
  return `OIDC_PROVIDERS[${String(index)}]${field !== undefined ? `.${String(field)}` : ''}`;
}

function isHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const parsed = new URL(text);
  return (
    (parsed.protocol === 'https:' || parsed.protocol === 'http:') && parsed.search === '' && parsed.hash === '' && parsed.username === ''
  );
}

/** Loopback names and addresses only: a dev provider elsewhere on the network would be reached over plain http. */
export function loopback(target: URL): boolean {
  const host = target.hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host.endsWith('.localhost') || host.startsWith('127.') || host === '::1';
}
