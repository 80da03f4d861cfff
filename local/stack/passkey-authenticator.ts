// A software WebAuthn authenticator for the tests and the bench: an ES256 key pair in WebCrypto, attestation "none", and
// the responses a browser would send, serialised as @simplewebauthn/browser does. Each part can be bent (another origin,
// RP ID, ceremony type, flags, counter, user handle) to make the refusals the tests ask for. CBOR through the library's
// own helper (isoCBOR), so a response is exactly what the server's decoder reads.
import { createHash, randomBytes } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

const b64url = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString('base64url');
const sha256 = (bytes: Uint8Array | Buffer | string) => createHash('sha256').update(bytes).digest();

export interface CeremonyBends {
  /** clientDataJSON's origin (default: the authenticator's). */
  origin?: string;
  /** The RP ID whose hash authenticatorData carries (default: the authenticator's). */
  rpId?: string;
  /** clientDataJSON's type (default webauthn.create / webauthn.get). */
  type?: string;
  /** Leave user verification out (UP alone). */
  withoutUserVerification?: boolean;
  /** The counter this assertion carries (default: the authenticator's next). */
  counter?: number;
  /** The user handle an assertion hands back (default: the one registered; null: none). */
  userHandle?: string | null;
  /** A signature over other bytes than the assertion's. */
  forgeSignature?: boolean;
}

export interface RegistrationOptions {
  challenge: string;
  rp: { id?: string; name: string };
  user: { id: string; name: string };
}

/** One credential on one authenticator; `clone()` copies its private key and counter, as a cloned device would. */
export class SoftwarePasskey {
  /** The credential id, base64url. */
  readonly id: string;
  private counter: number;
  private userHandle: string | undefined;

  private constructor(
    private readonly keys: CryptoKeyPair,
    private readonly site: { rpId: string; origin: string },
    id: string,
    counter: number,
    userHandle: string | undefined,
  ) {
    this.id = id;
    this.counter = counter;
    this.userHandle = userHandle;
  }

  /** A fresh credential whose counter starts at `counter` (0: an authenticator without a counter stays at 0). */
  static async create(options: { rpId: string; origin: string; counter?: number }): Promise<SoftwarePasskey> {
    const keys = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair;
    const site = { rpId: options.rpId, origin: options.origin };
    return new SoftwarePasskey(keys, site, b64url(randomBytes(32)), options.counter ?? 0, undefined);
  }

  clone(): SoftwarePasskey {
    return new SoftwarePasskey(this.keys, this.site, this.id, this.counter, this.userHandle);
  }

  /** The COSE public key as registration stores it (base64url), for fixtures written straight into PostgreSQL. */
  async cosePublicKey(): Promise<string> {
    const jwk = await crypto.subtle.exportKey('jwk', this.keys.publicKey);
    return b64url(
      isoCBOR.encode(
        new Map<number, number | Uint8Array>([
          [1, 2], // kty: EC2
          [3, -7], // alg: ES256
          [-1, 1], // crv: P-256
          [-2, Buffer.from(jwk.x!, 'base64url')],
          [-3, Buffer.from(jwk.y!, 'base64url')],
        ]),
      ),
    );
  }

  /** What navigator.credentials.create() would give for these options (the JSON of POST …/registration/verify). */
  async register(options: RegistrationOptions, bends: CeremonyBends = {}) {
    this.userHandle = options.user.id;
    const clientDataJSON = clientData(bends.type ?? 'webauthn.create', options.challenge, bends.origin ?? this.site.origin);
    const cosePublicKey = Buffer.from(await this.cosePublicKey(), 'base64url');
    const credentialId = Buffer.from(this.id, 'base64url');
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credentialId.length);
    const authData = Buffer.concat([
      sha256(bends.rpId ?? options.rp.id ?? this.site.rpId),
      Buffer.from([flags(bends) | FLAG_AT]),
      counterBytes(this.counter),
      Buffer.alloc(16), // AAGUID: none, with attestation "none"
      idLength,
      credentialId,
      Buffer.from(cosePublicKey),
    ]);
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Uint8Array | Map<string, string>>([
        ['fmt', 'none'],
        ['attStmt', new Map<string, string>()],
        ['authData', new Uint8Array(authData)],
      ]),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key' as const,
      clientExtensionResults: {},
      authenticatorAttachment: 'platform' as const,
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        transports: ['internal', 'hybrid'],
      },
    };
  }

  /** What navigator.credentials.get() would give for options with this challenge (POST …/authentication/verify's response). */
  async assert(challenge: string, bends: CeremonyBends = {}) {
    if (bends.counter === undefined) {
      if (this.counter > 0) this.counter += 1;
    } else {
      this.counter = bends.counter;
    }
    const clientDataJSON = clientData(bends.type ?? 'webauthn.get', challenge, bends.origin ?? this.site.origin);
    const authData = Buffer.concat([sha256(bends.rpId ?? this.site.rpId), Buffer.from([flags(bends)]), counterBytes(this.counter)]);
    const signed = Buffer.concat([authData, sha256(clientDataJSON)]);
    const raw = new Uint8Array(
      await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, this.keys.privateKey, bends.forgeSignature ? randomBytes(64) : signed),
    );
    const userHandle = bends.userHandle === undefined ? this.userHandle : (bends.userHandle ?? undefined);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key' as const,
      clientExtensionResults: {},
      authenticatorAttachment: 'platform' as const,
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        // WebAuthn's ES256 signatures are DER; WebCrypto's are r ‖ s.
        signature: b64url(derSignature(raw)),
        ...(userHandle !== undefined ? { userHandle } : {}),
      },
    };
  }
}

function clientData(type: string, challenge: string, origin: string): Buffer {
  return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }), 'utf8');
}

function flags(bends: CeremonyBends): number {
  return bends.withoutUserVerification === true ? FLAG_UP : FLAG_UP | FLAG_UV;
}

function counterBytes(counter: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(counter);
  return bytes;
}

/** r ‖ s (32 bytes each) as the ASN.1 SEQUENCE of two INTEGERs. */
function derSignature(raw: Uint8Array): Buffer {
  const integer = (bytes: Uint8Array) => {
    let start = 0;
    while (start < bytes.length - 1 && bytes[start] === 0) start += 1;
    const trimmed = Buffer.from(bytes.subarray(start));
    const body = trimmed[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed;
    return Buffer.concat([Buffer.from([0x02, body.length]), body]);
  };
  const sequence = Buffer.concat([integer(raw.subarray(0, 32)), integer(raw.subarray(32))]);
  return Buffer.concat([Buffer.from([0x30, sequence.length]), sequence]);
}
