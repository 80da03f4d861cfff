// npm start's DNS for custom-domain verification: the fake DNS-over-HTTPS resolver on loopback (local/emulators/doh),
// answering from `<data dir>/dns-txt.json` and, with DOH_FAKE_AUTO_VERIFY=true, whatever the pending claims expect.
// Nothing starts when DOMAIN_VERIFY_DOH_URL is set: the app asks that resolver instead.
import { join } from 'node:path';
import { startFakeDoh } from '../emulators/doh/index.ts';
import type { Teardown } from '../stack/teardown.ts';
import { withPgClient } from './pg-session.ts';

const CHALLENGE = /^_runstate-challenge\.(.+)$/;

export interface DemoDomainResolver {
  /** For the app's config only. */
  env: { DOMAIN_VERIFY_DOH_URL?: string };
  /** One line for the banner's services. */
  description: string;
}

export async function startDemoDomainResolver(
  env: Record<string, string | undefined>,
  dataDir: string,
  databaseUrl: string,
  stack: Teardown,
): Promise<DemoDomainResolver> {
  if (env.DOMAIN_VERIFY_DOH_URL) return { env: {}, description: `DOMAIN_VERIFY_DOH_URL from the environment` };
  const recordsFile = join(dataDir, 'dns-txt.json');
  const autoVerify = env.DOH_FAKE_AUTO_VERIFY === 'true';
  const fake = await startFakeDoh({
    recordsFile,
    // Every pending claim's expected value for the domain, as if each claimant had published its record.
    ...(autoVerify
      ? {
          answer: async (name: string) => {
            const domain = CHALLENGE.exec(name)?.[1];
            if (domain === undefined) return [];
            const { rows } = await withPgClient(databaseUrl, (client) =>
              client.query<{ token: string }>('SELECT token FROM organization_domain_claims WHERE domain = $1', [domain]),
            );
            return rows.map((row) => `runstate-verification=${row.token}`);
          },
        }
      : {}),
  });
  stack.add('fake DNS-over-HTTPS resolver', fake.close);
  return {
    env: { DOMAIN_VERIFY_DOH_URL: fake.url },
    description:
      `fake DNS-over-HTTPS resolver on ${fake.url}: TXT records from ${recordsFile} ({ "<name>": ["<text>"] }, read at every query)` +
      (autoVerify
        ? '; DOH_FAKE_AUTO_VERIFY=true: every pending claim verifies'
        : '; DOH_FAKE_AUTO_VERIFY=true verifies every pending claim'),
  };
}
