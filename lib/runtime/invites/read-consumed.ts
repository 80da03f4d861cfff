// Reads what a consuming script returned — the receipt and the invite inside it — and never burns what it cannot read.
import { errors } from '../../http/app-error.ts';
import { decodeJson } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import { inviteRecordSchema, type InviteRecord } from './invite-record.ts';
import { inviteReceiptSchema, type InviteReceipt } from './receipt.ts';
import { returnInvite } from './return-invite.ts';

/**
 * A record this version cannot read (say, a field added in a rolling deploy) is logged and, when this call just
 * consumed it, given back; the caller gets 503 and can retry against a version that reads it.
 */
export async function readConsumed(
  deps: Deps,
  consumed: { raw: unknown; consumedNow: boolean; organizationId: string; inviteId: string; correlationId: string },
): Promise<{ receipt: InviteReceipt; record: InviteRecord }> {
  const receipt = decodeJson(inviteReceiptSchema, consumed.raw);
  const record = receipt === undefined ? undefined : decodeJson(inviteRecordSchema, receipt.invite);
  if (receipt !== undefined && record !== undefined && record.organizationId === consumed.organizationId) return { receipt, record };
  deps.logger.error('invite_record_unreadable', { inviteId: consumed.inviteId, correlationId: consumed.correlationId });
  if (receipt !== undefined && consumed.consumedNow) {
    const { organizationId, inviteId, correlationId } = consumed;
    await returnInvite(deps, { organizationId, inviteId, attempt: receipt.attempt, correlationId });
  }
  throw errors.STORE_UNAVAILABLE('this invitation cannot be read right now; try again shortly');
}
