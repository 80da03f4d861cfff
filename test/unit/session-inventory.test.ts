// The pure parts of the session inventory: the User-Agent a session records, and the refresh token's derived successor.
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sessionUserAgent, USER_AGENT_MAX_CHARS } from '../../lib/auth/sessions/user-agent.ts';
import { issueRefreshToken, refreshTokenHash, successorRefreshToken } from '../../lib/auth/tokens/refresh-token.ts';

const KEY = 'test-only-index-hash-key-0123456789abcdef';

describe('sessionUserAgent', () => {
  it('keeps an ordinary User-Agent as it is', () => {
    const ua = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';
    expect(sessionUserAgent(ua)).toBe(ua);
  });

  it('removes control, format and separator characters (a forged line break or a bidi override), then trims', () => {
    expect(sessionUserAgent(' curl/8.5\r\n\u0000evil\u0007 ')).toBe('curl/8.5evil');
    expect(sessionUserAgent('app\u202egnp.exe\u2066x\u2028y\u0085z\u007f')).toBe('appgnp.exexyz');
    expect(sessionUserAgent('\u200b\t\n')).toBeNull();
  });

  it('cuts at 256 characters, never inside a surrogate pair, and answers null for none or nothing', () => {
    expect(sessionUserAgent('a'.repeat(1000))).toBe('a'.repeat(USER_AGENT_MAX_CHARS));
    const emoji = '\u{1F600}'.repeat(300);
    const cut = sessionUserAgent(emoji) ?? '';
    expect(Array.from(cut)).toHaveLength(USER_AGENT_MAX_CHARS);
    // No lone surrogate: UTF-8 encoding and decoding gives the same text back.
    expect(new TextDecoder().decode(new TextEncoder().encode(cut))).toBe(cut);
    expect(sessionUserAgent(undefined)).toBeNull();
    expect(sessionUserAgent('')).toBeNull();
  });
});

describe('successorRefreshToken', () => {
  it('is a refresh token: rsr_ and 43 characters of base64url, and its hash is the SHA-256 the table stores', async () => {
    const { token } = await issueRefreshToken();
    const successor = await successorRefreshToken(KEY, token);
    expect(successor.token).toMatch(/^rsr_[A-Za-z0-9_-]{43}$/);
    expect(await refreshTokenHash(successor.token)).toBe(successor.tokenHash);
    expect(successor.tokenHash).toBe(createHash('sha256').update(successor.token).digest('hex'));
  });

  it('is HMAC-SHA256 of the labelled presented token under the key (known answer, computed apart with node:crypto)', async () => {
    const presented = `rsr_${'p'.repeat(43)}`;
    const expected = createHmac('sha256', KEY).update(`runstate/auth/refresh-successor/v1\n${presented}`).digest('base64url');
    expect((await successorRefreshToken(KEY, presented)).token).toBe(`rsr_${expected}`);
  });

  it('is the same for one presented token (a retry recomputes it), and differs by token and by key', async () => {
    const { token } = await issueRefreshToken();
    const first = await successorRefreshToken(KEY, token);
    expect(await successorRefreshToken(KEY, token)).toEqual(first);
    expect((await successorRefreshToken(KEY, (await issueRefreshToken()).token)).token).not.toBe(first.token);
    expect((await successorRefreshToken(`${KEY}x`, token)).token).not.toBe(first.token);
    expect(first.token).not.toBe(token);
  });
});
