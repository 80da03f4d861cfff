// members: an organisation's role assignments as its admins manage them: list, change a role, remove a member.
import { changeMemberRole } from './change-member-role.ts';
import { listMembers } from './list-members.ts';
import { removeMember } from './remove-member.ts';

export const members = { list: listMembers, changeRole: changeMemberRole, remove: removeMember };
export { memberSchema } from './member.ts';
