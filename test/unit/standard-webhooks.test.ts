// Standard Webhooks signing and verification: the scheme's published vector, tampering, the ±5 min window, header edge cases.
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signStandardWebhook, verifyStandardWebhook, type WebhookHeaders } from '../../lib/webhooks/standard-webhooks.ts';

// The vector the Standard Webhooks reference libraries test their `sign` against.
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestampSeconds: 1614265330,
  rawBody: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};
const AT_VECTOR_TIME = VECTOR.timestampSeconds * 1000;
const OTHER_SECRET = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;

function headersOf(overrides: WebhookHeaders = {}): WebhookHeaders {
  return { id: VECTOR.id, timestamp: String(VECTOR.timestampSeconds), signature: VECTOR.signature, ...overrides };
}

async function verify(headers: WebhookHeaders, options: { rawBody?: string; nowMs?: number; secret?: string } = {}) {
  return verifyStandardWebhook({
    secret: options.secret ?? VECTOR.secret,
    headers,
    rawBody: options.rawBody ?? VECTOR.rawBody,
    nowMs: options.nowMs ?? AT_VECTOR_TIME,
  });
}

describe('the published vector', () => {
  it('signs to the expected signature', async () => {
    expect(await signStandardWebhook(VECTOR)).toBe(VECTOR.signature);
  });

  it('verifies, naming the id and timestamp', async () => {
    expect(await verify(headersOf())).toEqual({ ok: true, webhookId: VECTOR.id, timestampSeconds: VECTOR.timestampSeconds });
  });

  it('verifies the same body given as bytes', async () => {
    const rawBody = new TextEncoder().encode(VECTOR.rawBody);
    const result = await verifyStandardWebhook({ secret: VECTOR.secret, headers: headersOf(), rawBody, nowMs: AT_VECTOR_TIME });
    expect(result.ok).toBe(true);
  });
});

describe('tampering', () => {
  it('refuses a changed body, id or timestamp', async () => {
    expect(await verify(headersOf(), { rawBody: '{"test": 2432232315}' })).toEqual({ ok: false, reason: 'bad-signature' });
    expect(await verify(headersOf(), { rawBody: `${VECTOR.rawBody} ` })).toEqual({ ok: false, reason: 'bad-signature' });
    expect(await verify(headersOf({ id: `${VECTOR.id}x` }))).toEqual({ ok: false, reason: 'bad-signature' });
    const later = String(VECTOR.timestampSeconds + 1);
    expect(await verify(headersOf({ timestamp: later }))).toEqual({ ok: false, reason: 'bad-signature' });
  });

  it('refuses the right signature under another secret', async () => {
    expect(await verify(headersOf(), { secret: OTHER_SECRET })).toEqual({ ok: false, reason: 'bad-signature' });
  });

  it('refuses a flipped bit in the signature', async () => {
    const bytes = Buffer.from(VECTOR.signature.slice(3), 'base64');
    bytes[0] = (bytes[0] as number) ^ 1;
    expect(await verify(headersOf({ signature: `v1,${bytes.toString('base64')}` }))).toEqual({ ok: false, reason: 'bad-signature' });
  });
});

describe('the ±5 minute window', () => {
  const at = (offsetSeconds: number): number => AT_VECTOR_TIME + offsetSeconds * 1000;

  it('accepts up to 300 s either way, counting whole seconds', async () => {
    for (const offset of [-300, -299, 0, 299, 300]) expect((await verify(headersOf(), { nowMs: at(offset) })).ok).toBe(true);
    // 300.999 s after the timestamp is still second 300.
    expect((await verify(headersOf(), { nowMs: at(300) + 999 })).ok).toBe(true);
  });

  it('refuses 301 s in the past or the future as stale', async () => {
    expect(await verify(headersOf(), { nowMs: at(301) })).toEqual({ ok: false, reason: 'stale' });
    expect(await verify(headersOf(), { nowMs: at(-301) })).toEqual({ ok: false, reason: 'stale' });
  });

  it('takes another tolerance when given', async () => {
    const input = { secret: VECTOR.secret, headers: headersOf(), rawBody: VECTOR.rawBody, toleranceSeconds: 10 };
    expect((await verifyStandardWebhook({ ...input, nowMs: at(10) })).ok).toBe(true);
    expect(await verifyStandardWebhook({ ...input, nowMs: at(11) })).toEqual({ ok: false, reason: 'stale' });
  });
});

describe('several signatures', () => {
  const wrong = 'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=';

  it('accepts when any one v1 signature is valid', async () => {
    const signature = [wrong, 'v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=', VECTOR.signature, wrong].join(' ');
    expect((await verify(headersOf({ signature }))).ok).toBe(true);
  });

  it('ignores other versions, even carrying the right bytes', async () => {
    const bytes = VECTOR.signature.slice(3);
    for (const signature of [`v2,${bytes}`, `v1a,${bytes}`, `V1,${bytes}`, `,${bytes}`, bytes]) {
      expect(await verify(headersOf({ signature }))).toEqual({ ok: false, reason: 'bad-signature' });
    }
  });

  it('tolerates doubled spaces between signatures', async () => {
    expect((await verify(headersOf({ signature: `${wrong}  ${VECTOR.signature} ` }))).ok).toBe(true);
  });

  it('refuses more than 10 signatures or more than 4 KiB without looking for the valid one', async () => {
    const eleven = [...Array<string>(10).fill(wrong), VECTOR.signature].join(' ');
    expect(await verify(headersOf({ signature: eleven }))).toEqual({ ok: false, reason: 'bad-signature' });
    const ten = [...Array<string>(9).fill(wrong), VECTOR.signature].join(' ');
    expect((await verify(headersOf({ signature: ten }))).ok).toBe(true);
    const long = `${'v9,x'.repeat(1100)} ${VECTOR.signature}`;
    expect(await verify(headersOf({ signature: long }))).toEqual({ ok: false, reason: 'bad-signature' });
  });
});

describe('malformed input', () => {
  it('refuses missing or empty headers', async () => {
    for (const name of ['id', 'timestamp', 'signature'] as const) {
      for (const value of [undefined, null, '']) {
        expect(await verify(headersOf({ [name]: value }))).toEqual({ ok: false, reason: 'missing-headers' });
      }
    }
    expect(await verify({})).toEqual({ ok: false, reason: 'missing-headers' });
  });

  it('refuses an id that is not 1–256 visible ASCII characters', async () => {
    for (const id of ['msg 1', 'msg\t1', 'msg\n1', 'msg_ü', 'x'.repeat(257)]) {
      expect(await verify(headersOf({ id }))).toEqual({ ok: false, reason: 'missing-headers' });
    }
  });

  it('refuses a timestamp that is not plain digits of bounded length', async () => {
    for (const timestamp of [
      'hello',
      '1614265330abc',
      '-1614265330',
      '+1614265330',
      '01614265330',
      '1614265330.0',
      ' 1614265330',
      '1e9',
      '9'.repeat(13),
    ]) {
      expect(await verify(headersOf({ timestamp }))).toEqual({ ok: false, reason: 'bad-timestamp' });
    }
  });

  it('treats garbage or non-canonical base64 as no match', async () => {
    const bytes = VECTOR.signature.slice(3);
    for (const candidate of [
      'dawfeoifkpqwoekfpqoekf',
      '',
      '!!!!',
      bytes.slice(0, -1),
      `${bytes}=`,
      `${bytes.slice(0, -2)}F=`,
      bytes.replace('+', '-'),
      `${bytes.slice(0, 10)} ${bytes.slice(10)}`,
    ]) {
      expect(await verify(headersOf({ signature: `v1,${candidate}` }))).toEqual({ ok: false, reason: 'bad-signature' });
    }
    expect(await verify(headersOf({ signature: VECTOR.signature.slice(0, 8) }))).toEqual({ ok: false, reason: 'bad-signature' });
  });

  it('throws on a secret that is not whsec_<base64 of at least 16 bytes>, without echoing it', async () => {
    for (const secret of [
      'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'whsec_',
      'whsec_abc',
      'whsec_not base64 at all!!',
      `whsec_${Buffer.alloc(15).toString('base64')}`,
    ]) {
      const failure = verify(headersOf(), { secret });
      await expect(failure).rejects.toThrow(/whsec_<base64 of at least 16 bytes>/);
      await expect(failure).rejects.not.toThrow(secret.slice(6) || 'never-matches');
    }
  });

  it('refuses to sign with an id or timestamp the verifier would refuse', async () => {
    await expect(signStandardWebhook({ ...VECTOR, id: 'has space' })).rejects.toThrow(RangeError);
    await expect(signStandardWebhook({ ...VECTOR, timestampSeconds: 1.5 })).rejects.toThrow(RangeError);
    await expect(signStandardWebhook({ ...VECTOR, timestampSeconds: 0 })).rejects.toThrow(RangeError);
  });
});

describe('round trip', () => {
  it('verifies what it signs, for any body and id, and agrees with node:crypto', async () => {
    const id = fc.stringMatching(/^[\x21-\x7e]{1,256}$/);
    const body = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.json());
    const secretBytes = fc.uint8Array({ minLength: 16, maxLength: 64 });
    await fc.assert(
      fc.asyncProperty(id, body, secretBytes, fc.integer({ min: 1, max: 4_000_000_000 }), async (webhookId, rawBody, bytes, seconds) => {
        const secret = `whsec_${Buffer.from(bytes).toString('base64')}`;
        const signature = await signStandardWebhook({ secret, id: webhookId, timestampSeconds: seconds, rawBody });
        const oracle = createHmac('sha256', bytes).update(`${webhookId}.${seconds}.${rawBody}`, 'utf8').digest('base64');
        expect(signature).toBe(`v1,${oracle}`);
        const headers = { id: webhookId, timestamp: String(seconds), signature };
        const result = await verifyStandardWebhook({ secret, headers, rawBody, nowMs: seconds * 1000 + 999 });
        expect(result).toEqual({ ok: true, webhookId, timestampSeconds: seconds });
      }),
      { numRuns: 200 },
    );
  });
});
