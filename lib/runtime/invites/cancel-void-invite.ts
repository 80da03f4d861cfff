// A consumed invite whose grant was refused for good by invite_assert_grantable (its creator no longer an admin there,
// or its organisation deleted) is cancelled, not given back: nothing could ever accept it again.
import type { Deps } from '../../deps.ts';
import type { InviteRecord } from './invite-record.ts';
import { recordCancellation, type VoidCause } from './outcome.ts';
import type { InviteReceipt } from './receipt.ts';

/**
 * Records `invite.cancelled` with the cause as its reason, under the consuming request's correlation id. Another
 * outcome recorded first (an admin's cancel, a removal's) leaves that one standing. A PostgreSQL that cannot answer
 * throws: the receipt stays, and the caller's repeat or the reconciler meets the same refusal and records it then.
 */
export async function cancelVoidInvite(deps: Deps, receipt: InviteReceipt, record: InviteRecord, cause: VoidCause): Promise<void> {
  await recordCancellation(deps, { record, actorUserId: record.createdByUserId, correlationId: receipt.correlationId, reason: cause });
}
