// passkeys.list, rename: the signed-in user's own passkeys, read and renamed by their owner alone.
import { dbCall } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';
import { PASSKEY_VIEW_COLUMNS, passkeyView, type PasskeyView, type PasskeyViewRow } from './passkey-view.ts';

export async function listPasskeys(deps: Deps, userId: string): Promise<PasskeyView[]> {
  const rows = await dbCall('read', 'auth.passkeys.list', (signal) =>
    deps.db.query<PasskeyViewRow>(`SELECT ${PASSKEY_VIEW_COLUMNS} FROM passkeys WHERE user_id = $1 ORDER BY created_at, id`, [userId], {
      signal,
    }),
  );
  return rows.map(passkeyView);
}

/** Another user's passkey and an unknown one are the same undefined (404): nobody learns which ids exist. */
export async function renamePasskey(
  deps: Deps,
  input: { userId: string; passkeyId: string; name: string },
): Promise<PasskeyView | undefined> {
  const rows = await dbCall('commit', 'auth.passkeys.rename', (signal) =>
    deps.db.query<PasskeyViewRow>(
      `UPDATE passkeys SET name = $3 WHERE id = $1 AND user_id = $2 RETURNING ${PASSKEY_VIEW_COLUMNS}`,
      [input.passkeyId, input.userId, input.name],
      { signal },
    ),
  );
  return rows[0] === undefined ? undefined : passkeyView(rows[0]);
}
