// Helpers for the session tests: sessions opened through sign-in, and every authenticated route of the OpenAPI document.
import { decodeJwt } from 'jose';
import { uuidv7 } from 'uuidv7';
import { expect } from 'vitest';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { setPassword } from './fixtures.ts';
import type { TestStack } from './stack.ts';

export interface SignedIn {
  sessionId: string;
  accessToken: string;
  refreshToken: string;
}

let ipCounter = 0;
/** A fresh caller address per login, so the per-IP throttle never answers instead of sign-in. */
const freshIp = () => `127.1.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

/** Gives the user a password (once per call) and returns a function that opens a new session through POST /auth/login. */
export async function passwordSignIn(
  stack: TestStack,
  user: { userId: string; email: string },
): Promise<(organizationId: string) => Promise<SignedIn>> {
  const password = `pw-${uuidv7()}`;
  await setPassword(stack.db, user.userId, password);
  return async (organizationId) => {
    const response = await stack.request('POST', '/auth/login', {
      body: { organizationId, email: user.email, password },
      headers: { [TEST_CLIENT_IP_HEADER]: freshIp() },
    });
    expect(response.status).toBe(200);
    const tokens = (await response.json()) as { accessToken: string; refreshToken: string };
    return { sessionId: decodeJwt(tokens.accessToken).sid as string, ...tokens };
  };
}

export async function errorCode(response: Response): Promise<string | undefined> {
  const body = (await response.json().catch(() => ({}))) as { error?: { code?: string } };
  return body.error?.code;
}

/**
 * Every [method, path] of the OpenAPI document that declares the bearer scheme, its path ids filled with `ids[name]` or
 * a fresh UUID, so each call is well-shaped up to its body (a revoked token must win over the body's 400 too).
 */
export async function authenticatedRoutes(stack: TestStack, ids: Record<string, string> = {}): Promise<Array<[string, string]>> {
  const doc = (await (await stack.request('GET', '/openapi.json')).json()) as {
    paths: Record<string, Record<string, { security?: unknown[] }>>;
  };
  const routes: Array<[string, string]> = [];
  for (const [template, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      // Bearer-token (JWT) routes only: the /ops routes take an operator's secret, which no denylist covers.
      if (!(operation.security ?? []).some((scheme) => typeof scheme === 'object' && scheme !== null && 'bearerAuth' in scheme)) continue;
      // A {domain} is a hostname, not an id (POST /orgs/{orgId}/domains/{domain}/verify): an id would stop at its schema.
      const path = template.replace(/\{(\w+)\}/g, (_, name: string) => ids[name] ?? (name === 'domain' ? 'walk.example' : uuidv7()));
      routes.push([method.toUpperCase(), path]);
    }
  }
  return routes;
}
