// What an OIDC state stands for while it lives, declared with its key (lib/keys/defs/single-use.ts).
export { oidcStateSchema, type OidcState } from '../../keys/index.ts';
