-- Which configured OpenID providers (OIDC_PROVIDERS, by id) may sign people in to which organisation
-- (docs/design/oidc.md#oidc-sign-in). A provider links by verified email, so a provider that is not listed for an
-- organisation must never sign anyone in to it: /auth/oidc/{provider}/start refuses it, and the callback checks again.
-- Providers and their secrets stay in configuration; this table is the per-organisation choice, kept with the tenant.
CREATE TABLE oidc_provider_organizations (
  organization_id uuid NOT NULL REFERENCES organizations (id),
  provider_id text NOT NULL CHECK (provider_id ~ '^[a-z][a-z0-9-]{0,31}$'),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, provider_id)
);
