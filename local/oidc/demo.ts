// npm start's part of OIDC: the local provider with the demo admin's account, the OIDC_PROVIDERS the app is given
// (never printed: it holds the client secret), and what the banner says about it.
import { DEMO_OIDC_PROVIDER_ID } from '../launcher/seed.ts';
import type { Teardown } from '../stack/teardown.ts';

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
  // Loaded here rather than at the top: oidc-provider warns on import under a Node older than 22, and the line that
  // explains it must follow it, not the launcher's first lines.
  const { startLocalOidcProvider } = await import('./provider.ts');
  if (warnsOfRuntime(process.release)) {
    console.warn(
      '(that oidc-provider WARNING: the package wants Node 22 or later; the local sign-in provider, a development tool, runs on Node 20 too, which runstate supports)',
    );
  }
  const base = `http://127.0.0.1:${demo.appPort}`;
  // The demo seed lists this provider for the demo organisation (oidc_provider_organizations, local/launcher/seed.ts).
  const provider = await startLocalOidcProvider({
    redirectUri: `${base}/auth/oidc/${DEMO_OIDC_PROVIDER_ID}/callback`,
    accounts: [demo.adminEmail],
  });
  stack.add('local OpenID provider', provider.close);
  return {
    env: { OIDC_PROVIDERS: JSON.stringify([provider.providerEntry(DEMO_OIDC_PROVIDER_ID)]) },
    lines: [
      `Sign in through the local OpenID provider (${provider.issuer}): open this link in a browser, log in as ${demo.adminEmail}`,
      '(any password: its login form checks only the login), approve, and the callback answers the tokens POST /auth/login gives:',
      `  ${base}/auth/oidc/${DEMO_OIDC_PROVIDER_ID}/start?organizationId=${demo.organizationId}`,
    ],
  };
}

/** oidc-provider's own test (its lib/index.js): an LTS line before Jod (Node 22), or no LTS at all. */
function warnsOfRuntime(release: { lts?: string | undefined }): boolean {
  return release.lts === undefined || release.lts.charCodeAt(0) < 'Jod'.charCodeAt(0);
}
