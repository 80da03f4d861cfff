-- Tenants before sign-in: a public slug and custom domains to resolve an organisation by, its state, the branding the
-- sign-in page shows, and fields that never leave the server (docs/design.md#tenant-resolution).

-- Public: slug, state, display_name, logo_url, primary_color (the whitelist of lib/runtime/tenants/public-tenant.ts).
-- Server-only: suspension_reason, integration_settings, feature_flags; no query of the public paths selects them.
ALTER TABLE organizations
  ADD COLUMN slug text NULL,
  ADD COLUMN state text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'suspended', 'deleted')),
  ADD COLUMN display_name text NULL CHECK (display_name IS NULL OR char_length(display_name) BETWEEN 1 AND 100),
  ADD COLUMN logo_url text NULL CHECK (logo_url IS NULL OR (char_length(logo_url) <= 2048 AND logo_url ~ '^https://[^\s]+$')),
  ADD COLUMN primary_color text NULL CHECK (primary_color IS NULL OR primary_color ~ '^#[0-9a-f]{6}$'),
  ADD COLUMN suspension_reason text NULL CHECK (suspension_reason IS NULL OR char_length(suspension_reason) BETWEEN 1 AND 500),
  ADD COLUMN suspended_at timestamptz NULL,
  ADD COLUMN integration_settings jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(integration_settings) = 'object'),
  ADD COLUMN feature_flags jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(feature_flags) = 'object'),
  ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now(),
  -- A reason exactly while suspended: reactivating clears it, and no suspension goes without one.
  ADD CONSTRAINT organizations_suspension_reason CHECK ((state = 'suspended') = (suspension_reason IS NOT NULL));

-- Rows that insert (id, name) only (the demo seed, test fixtures, older tools) get a slug derived from the id: unique
-- by construction, of the slug's shape, and changed by an admin later. Existing rows get the same.
UPDATE organizations SET slug = 'o-' || replace(id::text, '-', '');

CREATE FUNCTION organizations_default_slug() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.slug := 'o-' || replace(NEW.id::text, '-', '');
  RETURN NEW;
END
$$;

CREATE TRIGGER organizations_default_slug BEFORE INSERT ON organizations
  FOR EACH ROW WHEN (NEW.slug IS NULL) EXECUTE FUNCTION organizations_default_slug();

-- A DNS label: lowercase letters, digits and inner hyphens, 1-63 characters; no dot, so a slug never equals a domain.
ALTER TABLE organizations
  ALTER COLUMN slug SET NOT NULL,
  ADD CONSTRAINT organizations_slug_shape CHECK (slug ~ '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'),
  ADD CONSTRAINT organizations_slug_unique UNIQUE (slug);

-- A custom domain belongs to one organisation. Stored lowercase ASCII (IDNA as punycode, xn--), without a trailing dot
-- or a port, at least two labels, the last starting with a letter (so never an IP address), at most 253 characters.
CREATE TABLE organization_domains (
  domain text PRIMARY KEY CHECK (
    domain = lower(domain)
    AND char_length(domain) <= 253
    AND domain ~ '^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$'
  ),
  organization_id uuid NOT NULL REFERENCES organizations (id),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX organization_domains_organization_idx ON organization_domains (organization_id);
