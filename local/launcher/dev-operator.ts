// The dev operator: in dev, with no OPERATOR_TOKEN_HASHES given, npm start makes one operator secret per data folder
// (kept 0600, never printed) and configures only its digest, so the /ops routes work without a hand-made hash.
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OPERATOR_SECRET_PATTERN } from '../../lib/config/index.ts';
import { displayPath } from './data-dir.ts';

/** The operator id audit rows and logs name for the dev secret. */
export const DEV_OPERATOR_ID = 'dev';

export interface DevOperator {
  /** Where the secret is kept, the only place it exists (the walkthrough reads it from there); undefined when none was made. */
  file?: string | undefined;
  /** What the app is configured with: the secret's digest, never the secret. */
  env: { OPERATOR_TOKEN_HASHES?: string };
  /** The banner's Operators line. */
  description: string;
}

/** None outside dev, nor when OPERATOR_TOKEN_HASHES is set (those operators bring their own secrets). */
export function provideDevOperator(dataDir: string, env: Record<string, string | undefined>): DevOperator {
  if (env.OPERATOR_TOKEN_HASHES) return { env: {}, description: 'OPERATOR_TOKEN_HASHES from the environment' };
  const appEnv = env.APP_ENV || 'dev';
  if (appEnv !== 'dev') return { env: {}, description: `off (APP_ENV=${appEnv}: no dev operator secret; /ops/… answer 503)` };
  const file = join(dataDir, 'operator-token');
  try {
    // 'wx' fails when the file exists, so every start (and two at once) keeps the one secret already handed out.
    writeFileSync(file, `rsop_${randomBytes(32).toString('base64url')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    chmodSync(file, 0o600);
  }
  const secret = readFileSync(file, 'utf8').trim();
  if (!OPERATOR_SECRET_PATTERN.test(secret)) {
    throw new Error(`${file} does not hold an operator secret npm start wrote; delete it to make a new one`);
  }
  return {
    file,
    env: { OPERATOR_TOKEN_HASHES: `${DEV_OPERATOR_ID}:${createHash('sha256').update(secret).digest('hex')}` },
    description: `operator "${DEV_OPERATOR_ID}", its secret in ${displayPath(file)} (0600, made once per data folder; only its SHA-256 is configured)`,
  };
}
