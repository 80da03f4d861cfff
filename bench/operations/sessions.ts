// The session list: GET /auth/sessions of a user with five live sessions (one PostgreSQL read, sent beside the revocation check).
import { decodeJwt } from 'jose';
import { uuidv7 } from 'uuidv7';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { setPassword } from '../../local/stack/fixtures.ts';
import { expectStatus, type OperationBench } from '../operation.ts';
import { BENCH_TOKEN_TTL_SECONDS } from '../stack.ts';

const SESSIONS = 5;

export const sessionsListBench: OperationBench = {
  name: 'sessions.list',
  roundTrips: { redis: 1, revocation: 1, pg: 1 },
  describe: `GET /auth/sessions of a user with ${SESSIONS} live sessions: one PostgreSQL read started beside the revocation check`,
  async prepare(stack) {
    const org = await stack.seedOrganization();
    const password = `bench-${uuidv7()}`;
    await setPassword(stack.db, org.adminId, password);
    let sessionId = '';
    // Opened through the API, untimed, each from an address of its own (the per-IP login throttle).
    for (let i = 0; i < SESSIONS; i++) {
      const response = await stack.request('POST', '/auth/login', {
        body: { organizationId: org.organizationId, email: org.adminEmail, password },
        headers: { [TEST_CLIENT_IP_HEADER]: `10.6.0.${i}`, 'user-agent': `bench/${i}` },
      });
      if (response.status !== 200) throw new Error(`sessions.list: the setup login answered ${response.status}`);
      sessionId = decodeJwt(((await response.json()) as { accessToken: string }).accessToken).sid as string;
    }
    // A token of the last session that outlives the run (sign-in's own live 15 minutes), bound as sign-in's are.
    const token = await stack.token({
      userId: org.adminId,
      sessionId,
      organizationId: org.organizationId,
      expiresInSeconds: BENCH_TOKEN_TTL_SECONDS,
    });
    return async (i) => {
      const response = await stack.request('GET', '/auth/sessions', { token });
      if (i > 0) return expectStatus('sessions.list', response, 200);
      // The first call proves the figures are for a list of every session, the presenting one marked.
      const { sessions } = (await response.json()) as { sessions: Array<{ current: boolean }> };
      if (response.status !== 200 || sessions.length !== SESSIONS || sessions.filter((s) => s.current).length !== 1)
        throw new Error(`sessions.list: expected ${SESSIONS} sessions, one current (HTTP ${response.status})`);
    };
  },
};
