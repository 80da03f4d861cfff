// npm start's part of OIDC: the local provider with the demo admin's account, the OIDC_PROVIDERS the app is given
// (never printed: it holds the client secret), and what the banner says about it.
import type { Teardown } from '../stack/teardown.ts';
import { startLocalOidcProvider } from './provider.ts';

export interface DemoOidc {
  /** For the app's config only. */
  env: { OIDC_PROVIDERS?: string };
  /** Banner lines; none when OIDC_PROVIDERS came from the environment. */
  lines: string[];
}

/** Starts the provider unless OIDC_PROVIDERS is set (then that is what the app gets, and nothing local starts). */
export async function startDemoOidc(
  env: Record<string, string | undefined>,
  demo: { appPort: number; organizationId: string; adminEmail: string },
  stack: Teardown,
): Promise<DemoOidc> {
  if (env.OIDC_PROVIDERS) return { env: {}, lines: [] };
  const base = `http://127.0.0.1:${demo.appPort}`;
  const provider = await startLocalOidcProvider({ redirectUri: `${base}/auth/oidc/local/callback`, accounts: [demo.adminEmail] });
  stack.add('local OpenID provider', provider.close);
  return {
    env: { OIDC_PROVIDERS: JSON.stringify([provider.providerEntry('local')]) },
    lines: [
      `Sign in through the local OpenID provider (${provider.issuer}): open this link in a browser, log in as ${demo.adminEmail}`,
      '(any password: its dev login form checks only the login), approve, and the callback answers the tokens POST /auth/login gives:',
      `  ${base}/auth/oidc/local/start?organizationId=${demo.organizationId}`,
    ],
  };
}
