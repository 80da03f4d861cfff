// Parses SECRETS_KEYS (`kid:base64key[,kid:base64key]`): AES-256-GCM keys, the first one encrypts.
export interface SecretKey {
  kid: string;
  key: Uint8Array;
}

// Its errors name an entry by position, never by its kid: a key pasted before the colon would be echoed as one
// (npm run config:check names variables, never values).
export function parseSecretsKeys(value: string): SecretKey[] {
  const keys = value.split(',').map((entry, index) => {
    const separator = entry.indexOf(':');
    const kid = entry.slice(0, separator).trim();
    const encoded = entry.slice(separator + 1).trim();
    if (separator <= 0 || !/^[A-Za-z0-9._-]{1,32}$/.test(kid)) {
      throw new Error(`entry ${index + 1}: expected kid:base64key with a kid of letters, digits, '.', '_' or '-'`);
    }
    let key: Uint8Array;
    try {
      key = Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0));
    } catch {
      throw new Error(`entry ${index + 1}: the key is not valid base64`);
    }
    if (key.length !== 32) throw new Error(`entry ${index + 1}: the key must be 32 bytes, got ${key.length}`);
    return { kid, key };
  });
  const kids = new Set(keys.map((k) => k.kid));
  if (kids.size !== keys.length) throw new Error('key ids must be unique');
  return keys;
}
