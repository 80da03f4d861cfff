-- Custom domains need proof of ownership (docs/design/tenants.md#domain-verification). organization_domains keeps its
-- meaning and its primary key: the domains that resolve, one organisation each; a row gets there only by a verified DNS
-- TXT record (lib/runtime/tenants/verify-domain.ts). What an organisation asks for and has not proved is a claim in
-- organization_domain_claims, where several organisations may hold the same domain at once, so a squatter who claims
-- a domain first blocks nobody: the claim that proves ownership wins and the others are dropped.
--
-- Rows already in organization_domains stay there, verified, with verified_at NULL ("held before proof was asked"):
-- deployments keep resolving the domains they serve today. Those were claimed first come, first served, so an
-- operator may review them: SELECT * FROM organization_domains WHERE verified_at IS NULL.

ALTER TABLE organization_domains ADD COLUMN verified_at timestamptz NULL;

-- The token is what the organisation's admin publishes as `_runstate-challenge.<domain>` TXT
-- `runstate-verification=<token>`: 128 random bits, shown again until the record is in place. It is public once
-- published and proves nothing for anyone else (each claim has its own), so it is kept as is.
CREATE TABLE organization_domain_claims (
  organization_id uuid NOT NULL REFERENCES organizations (id),
  domain text NOT NULL CHECK (
    domain = lower(domain)
    AND char_length(domain) <= 253
    AND domain ~ '^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$'
  ),
  token text NOT NULL CHECK (token ~ '^[0-9a-f]{32}$'),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, domain)
);

-- The verify drops every other organisation's claim of the domain it proved.
CREATE INDEX organization_domain_claims_domain_idx ON organization_domain_claims (domain);
