-- Core tenancy: organisations, their outlets (locations), users, role assignments and sessions.

CREATE TABLE organizations (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE locations (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id),
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- Lets role_assignments prove a location belongs to the organisation it is granted in.
  UNIQUE (id, organization_id)
);

CREATE INDEX locations_organization_idx ON locations (organization_id);

CREATE TABLE users (
  id uuid PRIMARY KEY,
  -- Stored lowercase so the unique constraint is case-insensitive without citext.
  email text NOT NULL UNIQUE CHECK (email = lower(email)),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE role_assignments (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id),
  organization_id uuid NOT NULL REFERENCES organizations (id),
  -- NULL means the role holds for the whole organisation.
  location_id uuid NULL,
  role_code text NOT NULL CHECK (role_code IN ('OrganizationAdmin', 'Accountant', 'Viewer')),
  granted_by_user_id uuid NULL REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  -- One role per user per scope; NULLS NOT DISTINCT makes the organisation-wide scope unique too (PostgreSQL 15+).
  -- Its leading columns also serve the "roles of this user in this organisation" lookup.
  CONSTRAINT role_assignments_scope_unique UNIQUE NULLS NOT DISTINCT (user_id, organization_id, location_id),
  -- A location-scoped role must name a location of the same organisation (skipped when location_id is NULL).
  CONSTRAINT role_assignments_location_in_organization
    FOREIGN KEY (location_id, organization_id) REFERENCES locations (id, organization_id)
);

CREATE INDEX role_assignments_organization_idx ON role_assignments (organization_id);

-- Sessions come from the identity provider's `sid`, so the user may not exist here yet: no FK to users.
CREATE TABLE sessions (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz NULL
);

CREATE INDEX sessions_user_idx ON sessions (user_id);
