// signInPolicy.read: an organisation's policy as PostgreSQL holds it (its admin's GET; sign-in paths read it in their own statement).
import { dbCall } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';
import { policyFromRow, type SignInPolicy } from './policy.ts';

interface Row {
  sign_in_require_mfa: boolean;
  sign_in_methods: string[];
}

/** One read; undefined for an organisation that does not exist or is deleted. */
export async function readSignInPolicy(deps: Deps, organizationId: string): Promise<SignInPolicy | undefined> {
  const rows = await dbCall('read', 'signInPolicy.read', (signal) =>
    deps.db.query<Row>(
      `SELECT sign_in_require_mfa, sign_in_methods FROM organizations WHERE id = $1 AND state <> 'deleted'`,
      [organizationId],
      { signal },
    ),
  );
  const row = rows[0];
  return row === undefined ? undefined : policyFromRow(row);
}
