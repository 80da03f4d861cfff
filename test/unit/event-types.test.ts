// The event catalogue and its audit mapping in lib/events/event-types.ts against the trigger's SQL, and the endpoint secret's format and binding.
import { readFileSync } from 'node:fs';
import { randomBytes as nodeRandomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS } from '../../lib/pg/audit.ts';
import { EVENT_TYPE_OF_AUDIT_ACTION, EVENT_TYPES } from '../../lib/events/event-types.ts';
import { endpointSecretBinding, generateEndpointSecret, openEndpointSecret, sealEndpointSecret } from '../../lib/events/endpoint-secret.ts';
import { SecretBoxError } from '../../lib/crypto/index.ts';

const migration = readFileSync(new URL('../../migrations/0028_webhook_endpoints.sql', import.meta.url), 'utf8');

function sqlFunctionBody(name: string): string {
  const start = migration.indexOf(`CREATE FUNCTION ${name}(`);
  expect(start).toBeGreaterThanOrEqual(0);
  const open = migration.indexOf('$$', start);
  return migration.slice(open + 2, migration.indexOf('$$', open + 2));
}

describe('event catalogue', () => {
  it('lists the same types as webhook_event_types()', () => {
    const sqlTypes = [...sqlFunctionBody('webhook_event_types').matchAll(/'([a-z_.]+)'/g)].map((m) => m[1]);
    expect(sqlTypes).toEqual([...EVENT_TYPES]);
  });

  it('maps the same audit actions to the same types as webhook_event_type()', () => {
    const sqlMapping = Object.fromEntries(
      [...sqlFunctionBody('webhook_event_type').matchAll(/WHEN '([a-z_.]+)' THEN '([a-z_.]+)'/g)].map((m) => [m[1], m[2]]),
    );
    expect(sqlMapping).toEqual(EVENT_TYPE_OF_AUDIT_ACTION);
  });

  it('maps only known audit actions, and every event type follows from at least one', () => {
    for (const action of Object.keys(EVENT_TYPE_OF_AUDIT_ACTION)) expect(AUDIT_ACTIONS).toContain(action);
    expect(new Set(Object.values(EVENT_TYPE_OF_AUDIT_ACTION))).toEqual(new Set(EVENT_TYPES));
  });
});

describe('endpoint secret', () => {
  const keys = [{ kid: 'k1', key: new Uint8Array(nodeRandomBytes(32)) }];
  const binding = endpointSecretBinding('0190a0b1-0000-7000-8000-000000000001', '0190a0b1-0000-7000-8000-000000000002', 1);

  it('is whsec_ and standard base64 of 32 random bytes, fresh each time', () => {
    const secret = generateEndpointSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(generateEndpointSecret()).not.toBe(secret);
  });

  it('opens under its own binding only', async () => {
    const secret = generateEndpointSecret();
    const sealed = await sealEndpointSecret(keys, secret, binding);
    expect(sealed.ciphertext).not.toContain(secret.slice(6, 20));
    await expect(openEndpointSecret(keys, sealed, binding)).resolves.toBe(secret);
    for (const other of [
      { ...binding, secretVersion: 2 },
      { ...binding, endpointId: '0190a0b1-0000-7000-8000-000000000003' },
      { ...binding, organizationId: '0190a0b1-0000-7000-8000-000000000003' },
    ]) {
      await expect(openEndpointSecret(keys, sealed, other)).rejects.toBeInstanceOf(SecretBoxError);
    }
  });
});

describe('the webhook-secret binding beside the others', () => {
  it('does not open a Syrve password sealed under the same ids', async () => {
    const keys = [{ kid: 'k1', key: new Uint8Array(nodeRandomBytes(32)) }];
    const ids = { organizationId: '0190a0b1-0000-7000-8000-000000000001', rowId: '0190a0b1-0000-7000-8000-000000000002' };
    const { sealSecret } = await import('../../lib/crypto/index.ts');
    const sealed = await sealSecret(keys, 'pw', {
      purpose: 'syrve-password',
      organizationId: ids.organizationId,
      connectionId: ids.rowId,
      credentialVersion: 1,
    });
    await expect(openEndpointSecret(keys, sealed, endpointSecretBinding(ids.organizationId, ids.rowId, 1))).rejects.toBeInstanceOf(
      SecretBoxError,
    );
  });
});
