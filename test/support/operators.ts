// Operator credentials for tests: a fresh secret of the real shape, and the OPERATOR_TOKEN_HASHES entry for it.
import { createHash, randomBytes } from 'node:crypto';

export interface TestOperator {
  id: string;
  secret: string;
  /** `<id>:<sha256 hex>`, as OPERATOR_TOKEN_HASHES lists it. */
  entry: string;
}

export function newOperator(id: string): TestOperator {
  const secret = `rsop_${randomBytes(32).toString('base64url')}`;
  return { id, secret, entry: `${id}:${createHash('sha256').update(secret).digest('hex')}` };
}
