// The demo admin's sign-in password (APP_ENV=dev only): stored as sign-in stores any password, and hashed again only
// when the stored hash does not verify against it, so a restart costs one verification and changes nothing.
import { hashPassword, MAX_PASSWORD_LENGTH, verifyPassword } from '../../lib/auth/password.ts';
import type { AppEnv } from '../../lib/config/index.ts';
import type { SeedClient } from './seed.ts';

export type DemoPasswordOutcome =
  /** Hashed and stored: there was none, or it was another password (DEMO_ADMIN_PASSWORD changed). */
  | { seeded: true; changed: true }
  /** The stored hash already verifies: nothing written. */
  | { seeded: true; changed: false }
  /** Not dev: a known password on a non-dev stack would be a back door, so nothing is written. */
  | { seeded: false; appEnv: AppEnv };

/**
 * Why a DEMO_ADMIN_PASSWORD from the environment cannot be used, or undefined. The banner's login line carries it in
 * a JSON string, so quotes, backslashes and control characters are refused rather than escaped for two languages.
 */
export function demoPasswordProblem(password: string): string | undefined {
  if (password.length < 8 || password.length > MAX_PASSWORD_LENGTH) return `must be 8–${MAX_PASSWORD_LENGTH} characters`;
  // eslint-disable-next-line no-control-regex
  if (/["\\\u0000-\u001f\u007f]/.test(password)) return 'must not hold a double quote, a backslash or a control character';
  return undefined;
}

export async function seedDemoPassword(
  client: SeedClient,
  input: { userId: string; password: string; appEnv: AppEnv },
): Promise<DemoPasswordOutcome> {
  if (input.appEnv !== 'dev') return { seeded: false, appEnv: input.appEnv };
  const problem = demoPasswordProblem(input.password);
  if (problem !== undefined) throw new Error(`DEMO_ADMIN_PASSWORD ${problem}`);
  const { rows } = await client.query('SELECT password_hash FROM users WHERE id = $1', [input.userId]);
  if (rows.length === 0) throw new Error('the demo admin is missing; seed the demo tenant first');
  const stored = rows[0].password_hash as string | null;
  if (stored !== null && (await verifyPassword(input.password, stored))) return { seeded: true, changed: false };
  await client.query('UPDATE users SET password_hash = $2 WHERE id = $1', [input.userId, await hashPassword(input.password)]);
  return { seeded: true, changed: true };
}
