// Mints HS256 bearer tokens for tests; the minter lives in local/stack so the demo seed and the bench use the same one.
export { mintToken, type TokenClaims } from '../../local/stack/tokens.ts';
