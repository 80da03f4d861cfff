// @simplewebauthn/server, loaded on the first passkey ceremony rather than at load: with its ASN.1 and X.509 parsers it
// is a quarter of the bundle, and evaluating it would cost every cold start, passkey or not (as lib/pg/db.ts does for
// the Neon driver). The bundlers keep it in the bundle; only its evaluation waits, once per isolate or process.
import type * as Server from '@simplewebauthn/server';
import type * as Helpers from '@simplewebauthn/server/helpers';

let server: Promise<typeof Server> | undefined;
let helpers: Promise<typeof Helpers> | undefined;

export const webauthnServer = (): Promise<typeof Server> => (server ??= import('@simplewebauthn/server'));
export const webauthnHelpers = (): Promise<typeof Helpers> => (helpers ??= import('@simplewebauthn/server/helpers'));
