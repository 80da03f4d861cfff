// The active context (registry row activeContext): a session's chosen organisation and outlet, with a role hint.
import { dropActiveContexts } from './drop-contexts.ts';
import { dropOrganizationContexts } from './drop-org-contexts.ts';
import { readActiveContext } from './read-context.ts';
import { resetActiveContext } from './reset-context.ts';
import { setActiveContext } from './set-context.ts';
import { switchOrganization } from './switch-organization.ts';

export const activeContext = {
  set: setActiveContext,
  switchOrganization,
  read: readActiveContext,
  reset: resetActiveContext,
  drop: dropActiveContexts,
  dropForOrganization: dropOrganizationContexts,
};
export { activeContextSchema } from './context-record.ts';
