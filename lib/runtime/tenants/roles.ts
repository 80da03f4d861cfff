// The roles a member holds in an organisation or a location, as role_assignments.role_code stores them (migrations/0001_core.sql).
export const ROLE_CODES = ['OrganizationAdmin', 'Accountant', 'Viewer'] as const;
export type RoleCode = (typeof ROLE_CODES)[number];
