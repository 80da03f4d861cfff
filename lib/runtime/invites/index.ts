// invites: Redis-only runtime objects (TTL exactly 3 h) with their audit trail in PostgreSQL.
import { acceptInvite } from './accept-invite.ts';
import { cancelInvite } from './cancel-invite.ts';
import { createInvite } from './create-invite.ts';
import { listInvites } from './list-invites.ts';

export const invites = { create: createInvite, list: listInvites, cancel: cancelInvite, accept: acceptInvite };
export { inviteSchema } from './invite-record.ts';
export { CREATE_INVITE } from './create-invite.ts';
export { LIST_INVITES } from './list-invites.ts';
export { CANCEL_INVITE } from './cancel-invite.ts';
export { ACCEPT_INVITE } from './accept-invite.ts';
export { RESTORE_INVITE } from './restore-invite.ts';
export { REMOVE_INVITE } from './remove-invite.ts';
