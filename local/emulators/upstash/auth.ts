// Checks the `Authorization: Bearer <token>` header in constant time.
import { createHash, timingSafeEqual } from 'node:crypto';

export const WRONGPASS_ERROR = 'WRONGPASS invalid or missing auth token';

export function createBearerCheck(token: string): (authorization: string | undefined) => boolean {
  // Comparing fixed-length digests keeps the comparison constant-time even when the lengths differ.
  const expected = digest(token);
  return (authorization) => {
    const match = /^bearer\s+(.+)$/i.exec(authorization?.trim() ?? '');
    const presented = match?.[1] ?? '';
    return timingSafeEqual(digest(presented), expected) && presented !== '';
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
