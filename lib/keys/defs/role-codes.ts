// The role codes a stored value may carry (invite objects, active contexts); lib/auth/org-access.ts grants by them.
export const ROLE_CODES = ['OrganizationAdmin', 'Accountant', 'Viewer'] as const;
export type RoleCode = (typeof ROLE_CODES)[number];
