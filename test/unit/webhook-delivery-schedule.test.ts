// The delivery schedule and the signed headers, alone: the times each attempt is due, and signatures the package verifies.
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { nextAttemptAt, RETRY_DELAYS_MS, SCHEDULE_SPAN_MS } from '../../lib/events/delivery/schedule.ts';
import { signDelivery, webhookIdOf } from '../../lib/events/delivery/signature.ts';

const START = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('the schedule', () => {
  it('backs off 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, counted from the start, and tries last 24 h after the first', () => {
    expect(RETRY_DELAYS_MS).toEqual([0, 5_000, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 23_095_000]);
    const due: number[] = [];
    for (let at: number | undefined = START; at !== undefined; at = nextAttemptAt(START, at)) due.push(at - START);
    expect(due).toEqual([0, 5_000, 305_000, 2_105_000, 9_305_000, 27_305_000, 63_305_000, 24 * HOUR]);
    expect(SCHEDULE_SPAN_MS).toBe(24 * HOUR);
  });

  it('skips the slots an attempt made late has missed, and gives up after the last', () => {
    expect(nextAttemptAt(START, START + 4 * MINUTE)).toBe(START + 305_000);
    expect(nextAttemptAt(START, START + 3 * HOUR)).toBe(START + 27_305_000);
    expect(nextAttemptAt(START, START + SCHEDULE_SPAN_MS)).toBeUndefined();
    expect(nextAttemptAt(START, START + 2 * SCHEDULE_SPAN_MS)).toBeUndefined();
  });
});

describe('the signed headers', () => {
  const current = `whsec_${btoa('current-secret-of-32-bytes-long!')}`;
  const previous = `whsec_${btoa('previous-secret-of-32-bytes-lng!')}`;
  const body = JSON.stringify({ type: 'member.role_changed', timestamp: '2026-01-01T00:00:00.000Z', data: { userId: 'x' } });

  it('derive the webhook-id from the delivery, the same on every attempt', () => {
    expect(webhookIdOf('0190a5b2-7c3d-7e4f-8a1b-2c3d4e5f6072')).toBe('msg_0190a5b27c3d7e4f8a1b2c3d4e5f6072');
  });

  it('carry one signature per secret, current first, each verified by the package alone and in the header', () => {
    const now = Date.now();
    const headers = signDelivery({ secrets: [current, previous], webhookId: 'msg_1', timestampMs: now, body });
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(now / 1000)));
    const [first, second] = headers['webhook-signature'].split(' ');
    expect(first).toBe(new Webhook(current).sign('msg_1', new Date(now), body));
    expect(second).toBe(new Webhook(previous).sign('msg_1', new Date(now), body));
    for (const secret of [current, previous]) expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    const stranger = `whsec_${btoa('somebody-else-secret-32-bytes!!!')}`;
    expect(() => new Webhook(stranger).verify(body, { ...headers })).toThrow();
  });

  it('need a secret', () => {
    expect(() => signDelivery({ secrets: [], webhookId: 'msg_1', timestampMs: START, body })).toThrow(RangeError);
  });
});
