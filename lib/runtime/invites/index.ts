// invites: Redis-only runtime objects (TTL exactly 3 h) with their audit trail in PostgreSQL.
import { acceptInvite } from './accept-invite.ts';
import { cancelInvite } from './cancel-invite.ts';
import { createInvite } from './create-invite.ts';
import { listInvites } from './list-invites.ts';
import { readInviteHistory } from './invite-history.ts';
import { reconcileInvites } from './reconcile-invites.ts';

export const invites = {
  create: createInvite,
  list: listInvites,
  history: readInviteHistory,
  cancel: cancelInvite,
  accept: acceptInvite,
  reconcile: reconcileInvites,
};
export { inviteSchema } from './invite-record.ts';
export { CREATE_INVITE } from './create-invite.ts';
export { LIST_INVITES } from './list-invites.ts';
export { CANCEL_INVITE } from './cancel-invite.ts';
export { ACCEPT_INVITE } from './accept-invite.ts';
export { RETURN_INVITE } from './return-invite.ts';
export { RECEIPTS_DUE, FORGET_RECEIPTS } from './reconcile-invites.ts';
export { REMOVE_INVITE } from './remove-invite.ts';
export { PRUNE_ORG_INDEX, PRUNE_EMAIL_INDEXES } from './prune-indexes.ts';
export { inviteIndexCleanupTask } from './cleanup-indexes.ts';
export { inviteReconcileTask } from './reconcile-task.ts';
