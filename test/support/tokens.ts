// Mints HS256 bearer tokens for tests and benchmarks; the minter lives in local/ so the demo seed uses the same one.
export { mintToken, type TokenClaims } from '../../local/launcher/tokens.ts';
