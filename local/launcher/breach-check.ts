// npm start's breached-password check: the fake range API on loopback (local/fakes/breached-passwords.ts), so the check
// runs as deployed without asking the real API. Nothing starts when PASSWORD_BREACH_API_URL is set (the app asks that
// one) or PASSWORD_BREACH_CHECK=off.
import { KNOWN_BREACHED_PASSWORDS, startFakeBreachedPasswords } from '../fakes/index.ts';
import type { Teardown } from '../stack/teardown.ts';

export interface DemoBreachCheck {
  /** For the app's config only. */
  env: { PASSWORD_BREACH_API_URL?: string };
  /** One line for the banner's services. */
  description: string;
  /** A password the fake lists, for the walkthrough; undefined when no fake runs. */
  breachedPassword?: string;
}

export async function startDemoBreachCheck(env: Record<string, string | undefined>, stack: Teardown): Promise<DemoBreachCheck> {
  if (env.PASSWORD_BREACH_CHECK === 'off') return { env: {}, description: 'off (PASSWORD_BREACH_CHECK=off)' };
  if (env.PASSWORD_BREACH_API_URL) return { env: {}, description: 'PASSWORD_BREACH_API_URL from the environment' };
  const fake = await startFakeBreachedPasswords();
  stack.add('fake breached-password range API', fake.close);
  const listed = Object.keys(KNOWN_BREACHED_PASSWORDS);
  return {
    env: { PASSWORD_BREACH_API_URL: fake.url },
    description:
      `fake breached-password range API on ${fake.url} (${env.PASSWORD_BREACH_CHECK || 'fail-open'}): lists ${listed.length} ` +
      `known passwords, e.g. ${listed[0]}; register, reset and every password change refuse them with 400 PASSWORD_BREACHED`,
    breachedPassword: listed[0]!,
  };
}
