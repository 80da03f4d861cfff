// What a browser sends back from navigator.credentials.create() and .get() (as @simplewebauthn/browser serialises
// them), and the parts of it this service reads before the library does: clientDataJSON's challenge, type and origin,
// and authenticatorData's RP ID hash and flags, each of which answers with a code of its own.
import * as z from 'zod';
import { base64urlDecode, bytesToHex, sha256Hex } from '../../crypto/index.ts';
import { webauthnHelpers } from './webauthn-library.ts';

/** base64url of at most `bytes` bytes (the 16 KiB body limit bounds them all anyway). */
const b64url = (bytes: number) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'base64url')
    .max(Math.ceil((bytes * 4) / 3));

export const PASSKEY_TRANSPORTS = ['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb'] as const;
const credentialId = b64url(1023);
const common = {
  id: credentialId,
  rawId: credentialId,
  type: z.literal('public-key'),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
};

export const registrationResponseSchema = z.object({
  ...common,
  response: z.object({
    clientDataJSON: b64url(2048),
    attestationObject: b64url(8192),
    transports: z.array(z.enum(PASSKEY_TRANSPORTS)).max(8).optional(),
  }),
});
export type RegistrationResponse = z.output<typeof registrationResponseSchema>;

export const authenticationResponseSchema = z.object({
  ...common,
  response: z.object({
    clientDataJSON: b64url(2048),
    authenticatorData: b64url(2048),
    signature: b64url(1024),
    userHandle: b64url(64).optional(),
  }),
});
export type AuthenticationResponse = z.output<typeof authenticationResponseSchema>;

export interface ClientData {
  type: string;
  challenge: string;
  origin: string;
}

/** clientDataJSON's three fields this service checks, or undefined when it is not JSON of that shape. */
export function readClientData(clientDataJSON: string): ClientData | undefined {
  try {
    const parsed = JSON.parse(new TextDecoder().decode(base64urlDecode(clientDataJSON))) as Record<string, unknown>;
    const { type, challenge, origin } = parsed;
    if (typeof type !== 'string' || typeof challenge !== 'string' || typeof origin !== 'string') return undefined;
    return { type, challenge, origin };
  } catch {
    return undefined;
  }
}

export interface AuthenticatorFacts {
  rpIdHash: Uint8Array;
  userPresent: boolean;
  userVerified: boolean;
}

/** authenticatorData's RP ID hash and flags: an assertion's own, or the one inside an attestation object. */
export async function readAuthenticatorData(
  response: AuthenticationResponse | RegistrationResponse,
): Promise<AuthenticatorFacts | undefined> {
  const { decodeAttestationObject, parseAuthenticatorData } = await webauthnHelpers();
  try {
    const authData =
      'attestationObject' in response.response
        ? decodeAttestationObject(base64urlDecode(response.response.attestationObject)).get('authData')
        : base64urlDecode(response.response.authenticatorData);
    const parsed = parseAuthenticatorData(authData);
    return { rpIdHash: parsed.rpIdHash, userPresent: parsed.flags.up, userVerified: parsed.flags.uv };
  } catch {
    return undefined;
  }
}

/** Whether the authenticator scoped its answer to our RP ID (authenticatorData holds its SHA-256; public, no secret). */
export async function isOurRpId(rpIdHash: Uint8Array, rpId: string): Promise<boolean> {
  return bytesToHex(rpIdHash) === (await sha256Hex(rpId));
}
