// Dev secrets for the local stack: taken from the environment when set, else generated once per data folder and kept 0600.
import { randomBytes } from 'node:crypto';
import { chmod, stat } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { readIfExists, writePrivateFile } from './private-file.ts';

export const DEV_SECRET_NAMES = [
  'AUTH_JWT_SECRET',
  'INDEX_HASH_KEY',
  'SECRETS_KEYS',
  'WEBHOOK_SECRET',
  'SYRVE_DEMO_PASSWORD',
  'DEMO_ADMIN_PASSWORD',
] as const;
export type DevSecretName = (typeof DEV_SECRET_NAMES)[number];

/** The launcher's own: the seed and the fake iiko server use them; the app (and `npm run dev:worker`'s worker) never gets them. */
const LAUNCHER_ONLY = ['SYRVE_DEMO_PASSWORD', 'DEMO_ADMIN_PASSWORD'] as const;
type LauncherOnlySecret = (typeof LAUNCHER_ONLY)[number];
export type AppSecretName = Exclude<DevSecretName, LauncherOnlySecret>;

export interface DevSecrets {
  values: Record<DevSecretName, string>;
  /** The file holding the generated ones. */
  file: string;
  /** Which values came from the environment (they are never written to the file). */
  fromEnv: DevSecretName[];
}

const GENERATORS: Record<DevSecretName, () => string> = {
  AUTH_JWT_SECRET: () => randomBytes(32).toString('base64url'),
  INDEX_HASH_KEY: () => randomBytes(32).toString('base64url'),
  SECRETS_KEYS: () => `dev:${randomBytes(32).toString('base64')}`,
  WEBHOOK_SECRET: () => `whsec_${randomBytes(24).toString('base64')}`,
  // The demo connection's first password, which the launcher's fake iiko server accepts (local/launcher/seed-syrve.ts).
  SYRVE_DEMO_PASSWORD: () => randomBytes(24).toString('base64url'),
  // The demo admin's sign-in password (dev only; local/launcher/seed-password.ts): printed by npm start, so base64url,
  // which needs no quoting in a shell or JSON.
  DEMO_ADMIN_PASSWORD: () => randomBytes(18).toString('base64url'),
};

const fileSchema = z.object(
  Object.fromEntries(DEV_SECRET_NAMES.map((name) => [name, z.string().min(1).optional()])) as Record<
    DevSecretName,
    z.ZodOptional<z.ZodString>
  >,
);

/** The dev secrets the app is configured with: every one but the launcher's own. */
export function appSecrets(values: Record<DevSecretName, string>): Record<AppSecretName, string> {
  const app: Partial<Record<DevSecretName, string>> = { ...values };
  for (const name of LAUNCHER_ONLY) delete app[name];
  return app as Record<AppSecretName, string>;
}

export function devSecretsFile(dataDir: string): string {
  return join(dataDir, 'dev-secrets.json');
}

export async function loadDevSecrets(dataDir: string, env: Record<string, string | undefined>): Promise<DevSecrets> {
  const file = devSecretsFile(dataDir);
  const existing = await readSecretsFile(file);
  const stored = { ...existing };
  const values = {} as Record<DevSecretName, string>;
  const fromEnv: DevSecretName[] = [];
  let changed = false;
  for (const name of DEV_SECRET_NAMES) {
    const given = env[name];
    if (given !== undefined && given !== '') {
      values[name] = given;
      fromEnv.push(name);
      continue;
    }
    let value = stored[name];
    if (value === undefined) {
      value = GENERATORS[name]();
      stored[name] = value;
      changed = true;
    }
    values[name] = value;
  }
  if (changed) await writeSecretsFile(file, stored);
  else if (existing !== undefined) await keepPrivate(file);
  return { values, file, fromEnv };
}

async function readSecretsFile(file: string): Promise<Partial<Record<DevSecretName, string>> | undefined> {
  const text = await readIfExists(file);
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Never regenerate over it silently: SECRETS_KEYS encrypts stored credentials, a new key orphans them.
    throw new Error(`${file} is not valid JSON; repair it, or delete it to generate new dev secrets`);
  }
  const result = fileSchema.safeParse(parsed);
  if (!result.success) throw new Error(`${file} does not hold the expected dev secrets; repair it, or delete it to generate new ones`);
  return { ...result.data };
}

async function writeSecretsFile(file: string, secrets: Partial<Record<DevSecretName, string>>): Promise<void> {
  await writePrivateFile(file, `${JSON.stringify(secrets, null, 2)}\n`);
}

async function keepPrivate(file: string): Promise<void> {
  const { mode } = await stat(file);
  if ((mode & 0o077) !== 0) await chmod(file, 0o600);
}
