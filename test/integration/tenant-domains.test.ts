// Custom domains need proof of ownership: a claim is pending (it resolves nowhere) until its TXT record is found through
// the configured DNS-over-HTTPS resolver — here the fake one on loopback (local/emulators/doh), never real DNS. The
// adversaries: a squatter claiming someone else's domain first, a wrong record, a resolver down or slow, and request
// input trying to reach the resolver's URL.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeDoh, type FakeDoh } from '../../local/emulators/doh/index.ts';
import { composeApp } from '../../local/stack/app.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { dumpNamespace, freshIp, resolve, seedTenant, unique } from '../support/tenants.ts';

let stack: TestStack;
let doh: FakeDoh;
beforeAll(async () => {
  doh = await startFakeDoh();
  stack = await startStack({ env: { KEY_PREFIX: unique('td').slice(0, 12), DOMAIN_VERIFY_DOH_URL: doh.url } });
});
afterAll(async () => {
  await stack?.close();
  await doh?.close();
});
beforeEach(() => {
  doh.faults.clear();
  doh.queries.length = 0;
});

type Tenant = Awaited<ReturnType<typeof seedTenant>>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const json = async (response: Response) => (await response.json()) as Record<string, any>;
const putDomains = (t: Tenant, list: string[], token = t.adminToken) =>
  stack.request('PUT', `/orgs/${t.organizationId}/domains`, { token, body: { domains: list } });
const listDomains = (t: Tenant, token = t.adminToken) => stack.request('GET', `/orgs/${t.organizationId}/domains`, { token });
const verify = (t: Tenant, domain: string, token = t.adminToken) =>
  stack.request('POST', `/orgs/${t.organizationId}/domains/${domain}/verify`, { token });
const newDomain = (prefix = 'd') => `${unique(prefix)}.example`;

/** The record the admin was shown for `domain`, from the domains answer. */
async function shownRecord(t: Tenant, domain: string): Promise<{ name: string; value: string }> {
  const entry = (await json(await listDomains(t))).domains.find((d: { domain: string }) => d.domain === domain);
  expect(entry?.status).toBe('pending');
  return entry.txtRecord;
}

/** Publishes a TXT record at the fake resolver, as the domain's owner would at their DNS host. */
function publish(record: { name: string; value: string }): void {
  doh.records.set(record.name, [...(doh.records.get(record.name) ?? []), record.value]);
}

async function auditRows(t: Tenant, action: string) {
  const { rows } = await stack.db.query(
    `SELECT actor_user_id, details FROM audit_events WHERE organization_id = $1 AND action = $2 ORDER BY occurred_at`,
    [t.organizationId, action],
  );
  return rows as Array<{ actor_user_id: string; details: Record<string, unknown> }>;
}

describe('claiming', () => {
  it('a new domain is pending with its own TXT record, resolves nowhere, and settings list only verified domains', async () => {
    const held = newDomain('held');
    const tenant = await seedTenant(stack, { domains: [held] });
    const claimed = newDomain('claim');
    const response = await putDomains(tenant, [held, `${claimed.toUpperCase()}.`]);
    expect(response.status).toBe(200);
    const { domains } = await json(response);
    const pending = domains.find((d: { domain: string }) => d.domain === claimed);
    expect(pending).toEqual({
      domain: claimed,
      status: 'pending',
      verifiedAt: null,
      txtRecord: { name: `_runstate-challenge.${claimed}`, value: expect.stringMatching(/^runstate-verification=[0-9a-f]{32}$/) },
    });
    // A domain held before verification existed stays verified, its proof date unknown (migrations/0017).
    expect(domains.find((d: { domain: string }) => d.domain === held)).toEqual({
      domain: held,
      status: 'verified',
      verifiedAt: null,
      txtRecord: null,
    });
    // The same record every time it is shown, and again after the set is sent again: the admin publishes it once.
    expect(await shownRecord(tenant, claimed)).toEqual(pending.txtRecord);
    expect((await putDomains(tenant, [claimed, held])).status).toBe(200);
    expect(await shownRecord(tenant, claimed)).toEqual(pending.txtRecord);
    // Two claims of different organisations never share a token.
    const other = await seedTenant(stack);
    expect((await putDomains(other, [claimed])).status).toBe(200);
    expect((await shownRecord(other, claimed)).value).not.toBe(pending.txtRecord.value);

    const ip = freshIp();
    expect((await resolve(stack, { domain: claimed }, ip)).status).toBe(404);
    expect((await resolve(stack, { domain: held }, ip)).status).toBe(200);
    const settings = await json(await stack.request('GET', `/orgs/${tenant.organizationId}/settings`, { token: tenant.adminToken }));
    expect(settings.settings.domains).toEqual([held]);
  });

  it('answers the domain routes to the organisation admin only', async () => {
    const domain = newDomain();
    const tenant = await seedTenant(stack);
    const outsider = await seedTenant(stack);
    expect((await putDomains(tenant, [domain])).status).toBe(200);
    expect((await listDomains(tenant, outsider.adminToken)).status).toBe(403);
    expect((await verify(tenant, domain, outsider.adminToken)).status).toBe(403);
    expect((await stack.request('POST', `/orgs/${tenant.organizationId}/domains/${domain}/verify`)).status).toBe(401);
    expect(doh.queries).toHaveLength(0);
  });
});

describe('verifying', () => {
  it('the published record proves the claim: verified, audited, and it resolves at once even after a remembered miss', async () => {
    const tenant = await seedTenant(stack);
    const domain = newDomain('proof');
    expect((await putDomains(tenant, [domain])).status).toBe(200);
    const record = await shownRecord(tenant, domain);
    const ip = freshIp();
    // Remembered as unknown while pending.
    expect((await resolve(stack, { domain }, ip)).status).toBe(404);
    publish(record);
    const response = await verify(tenant, domain);
    expect(response.status).toBe(200);
    const answer = await json(response);
    expect(answer.domain).toEqual({ domain, status: 'verified', verifiedAt: expect.any(String), txtRecord: null });
    // Exactly one query, of the challenge name's TXT, as the DoH JSON API asks.
    expect(doh.queries).toHaveLength(1);
    expect(doh.queries[0]).toMatchObject({ name: `_runstate-challenge.${domain}`, type: 'TXT', accept: 'application/dns-json' });
    expect(doh.queries[0]!.url).toBe(`/dns-query?name=_runstate-challenge.${domain}&type=TXT`);

    const resolved = await json(await resolve(stack, { domain }, ip));
    expect(resolved.tenant.organizationId).toBe(tenant.organizationId);
    expect((await json(await listDomains(tenant))).domains).toEqual([answer.domain]);
    const audit = await auditRows(tenant, 'tenant.domain_verified');
    expect(audit).toEqual([{ actor_user_id: tenant.adminId, details: { domain, droppedClaims: 0 } }]);
    // A second verify is the same answer, without asking DNS again and without a second audit row.
    expect((await json(await verify(tenant, domain))).domain.status).toBe('verified');
    expect(doh.queries).toHaveLength(1);
    expect(await auditRows(tenant, 'tenant.domain_verified')).toHaveLength(1);

    // The token is shown to the admin and published; it reaches no Redis value, log line or audit row.
    const token = record.value.split('=')[1]!;
    expect(JSON.stringify(await dumpNamespace(stack))).not.toContain(token);
    expect(stack.logs.join('\n')).not.toContain(token);
    const { rows } = await stack.db.query(`SELECT details FROM audit_events WHERE organization_id = $1`, [tenant.organizationId]);
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it('a wrong TXT value (or another claim’s) fails with 409 DOMAIN_NOT_VERIFIED and changes nothing', async () => {
    const tenant = await seedTenant(stack);
    const other = await seedTenant(stack);
    const domain = newDomain('wrong');
    expect((await putDomains(tenant, [domain])).status).toBe(200);
    expect((await putDomains(other, [domain])).status).toBe(200);
    const mine = await shownRecord(tenant, domain);
    const theirs = await shownRecord(other, domain);
    // Nothing published, then near misses of the right value, then the other organisation's value.
    const attempts = [
      [],
      [`${mine.value}0`],
      [mine.value.slice(0, -1)],
      [mine.value.toUpperCase()],
      ['runstate-verification='],
      [theirs.value],
    ];
    for (const texts of attempts) {
      doh.records.set(mine.name, texts);
      const response = await verify(tenant, domain);
      expect(response.status, JSON.stringify(texts)).toBe(409);
      expect((await json(response)).error.code).toBe('DOMAIN_NOT_VERIFIED');
    }
    // The record published under another name does not count either.
    doh.records.set(mine.name, []);
    doh.records.set(domain, [mine.value]);
    expect((await verify(tenant, domain)).status).toBe(409);
    expect(await shownRecord(tenant, domain)).toEqual(mine);
    expect(await auditRows(tenant, 'tenant.domain_verified')).toEqual([]);
    expect((await resolve(stack, { domain }, freshIp())).status).toBe(404);
    // Beside unrelated records, the right one counts (a TXT name may hold several).
    doh.records.set(mine.name, ['v=spf1 -all', mine.value]);
    expect((await verify(tenant, domain)).status).toBe(200);
  });

  it('a domain this organisation never claimed, or a removed claim, is 404 and DNS is not asked', async () => {
    const tenant = await seedTenant(stack);
    const domain = newDomain('gone');
    expect((await verify(tenant, domain)).status).toBe(404);
    expect((await putDomains(tenant, [domain])).status).toBe(200);
    const record = await shownRecord(tenant, domain);
    expect((await putDomains(tenant, [])).status).toBe(200);
    publish(record);
    expect((await verify(tenant, domain)).status).toBe(404);
    expect(doh.queries).toHaveLength(0);
    // Claimed again: a new token, so the record published for the old claim proves nothing.
    expect((await putDomains(tenant, [domain])).status).toBe(200);
    expect((await shownRecord(tenant, domain)).value).not.toBe(record.value);
    expect((await verify(tenant, domain)).status).toBe(409);
  });
});

describe('a squatter', () => {
  it('claims first and stays pending; the owner proves it, the squatter’s claim is dropped, resolve never shows the squatter', async () => {
    const owner = await seedTenant(stack, { displayName: 'Big Bank' });
    const squatter = await seedTenant(stack, { displayName: 'Phishing Ltd' });
    const domain = `login.${newDomain('bigbank')}`;
    const ip = freshIp();
    const resolvedName = async () => {
      const response = await resolve(stack, { domain }, ip);
      return response.status === 200 ? (await json(response)).tenant.displayName : response.status;
    };

    // The squatter claims first: pending, and it cannot publish the owner's DNS, so its verify fails every time.
    expect((await putDomains(squatter, [domain])).status).toBe(200);
    expect((await verify(squatter, domain)).status).toBe(409);
    expect(await resolvedName()).toBe(404);
    // The claim blocks nobody: the owner claims the same domain.
    expect((await putDomains(owner, [domain])).status).toBe(200);
    const record = await shownRecord(owner, domain);
    publish(record);
    // The owner's record is public now; it is still not the squatter's value.
    expect((await verify(squatter, domain)).status).toBe(409);
    expect(await resolvedName()).toBe(404);

    expect((await verify(owner, domain)).status).toBe(200);
    expect(await resolvedName()).toBe('Big Bank');
    expect(await auditRows(owner, 'tenant.domain_verified')).toEqual([
      { actor_user_id: owner.adminId, details: { domain, droppedClaims: 1 } },
    ]);
    // The squatter's claim is gone; its verify and a new claim are 409 DOMAIN_TAKEN, naming no one.
    expect((await json(await listDomains(squatter))).domains).toEqual([]);
    const again = await verify(squatter, domain);
    expect(again.status).toBe(409);
    expect((await json(again)).error.code).toBe('DOMAIN_TAKEN');
    const reclaim = await putDomains(squatter, [domain]);
    expect(reclaim.status).toBe(409);
    const body = await json(reclaim);
    expect(body.error.code).toBe('DOMAIN_TAKEN');
    expect(JSON.stringify(body)).not.toContain(owner.organizationId);
    expect(await resolvedName()).toBe('Big Bank');
  });

  it('two organisations verifying the same domain at once: exactly one wins, the other is 409 DOMAIN_TAKEN', async () => {
    for (let round = 0; round < 3; round++) {
      const a = await seedTenant(stack);
      const b = await seedTenant(stack);
      const domain = newDomain(`race${round}`);
      expect((await putDomains(a, [domain])).status).toBe(200);
      expect((await putDomains(b, [domain])).status).toBe(200);
      // Both values published (a shared DNS host, say): the race is decided by PostgreSQL alone.
      publish(await shownRecord(a, domain));
      publish(await shownRecord(b, domain));
      const statuses = (await Promise.all([verify(a, domain), verify(b, domain)])).map((r) => r.status).sort();
      expect(statuses).toEqual([200, 409]);
      const { rows } = await stack.db.query('SELECT organization_id FROM organization_domains WHERE domain = $1', [domain]);
      expect(rows).toHaveLength(1);
      const { rows: claims } = await stack.db.query('SELECT 1 FROM organization_domain_claims WHERE domain = $1', [domain]);
      expect(claims).toEqual([]);
    }
  });
});

describe('the resolver', () => {
  const expectNothingChanged = async (tenant: Tenant, domain: string, record: { name: string; value: string }) => {
    expect(await shownRecord(tenant, domain)).toEqual(record);
    expect(await auditRows(tenant, 'tenant.domain_verified')).toEqual([]);
    expect((await resolve(stack, { domain }, freshIp())).status).toBe(404);
  };

  it('down, failing, garbled or SERVFAIL: 502 DNS_LOOKUP_FAILED, nothing changed, one WARN naming neither domain nor token', async () => {
    const tenant = await seedTenant(stack);
    const domain = newDomain('down');
    expect((await putDomains(tenant, [domain])).status).toBe(200);
    const record = await shownRecord(tenant, domain);
    publish(record);
    for (const fault of [
      { refuse: true },
      { status: 500 },
      { status: 302 },
      { body: '<html>not json</html>' },
      { body: '{"Status":"x"}' },
      { servfail: true },
    ]) {
      doh.faults.set(fault);
      const before = stack.logs.length;
      const response = await verify(tenant, domain);
      doh.faults.clear();
      expect(response.status, JSON.stringify(fault)).toBe(502);
      expect((await json(response)).error.code).toBe('DNS_LOOKUP_FAILED');
      const warns = stack.logs.slice(before).filter((line) => line.includes('domain_verify_resolver_failed'));
      expect(warns).toHaveLength(1);
      expect(warns[0]).not.toContain(domain);
      expect(warns[0]).not.toContain(record.value);
    }
    await expectNothingChanged(tenant, domain, record);
    // Healthy again: the same claim verifies.
    expect((await verify(tenant, domain)).status).toBe(200);
  });

  it('slow: the verify gives up at its deadline (3 s) with 502, nothing changed', async () => {
    const tenant = await seedTenant(stack);
    const domain = newDomain('slow');
    expect((await putDomains(tenant, [domain])).status).toBe(200);
    const record = await shownRecord(tenant, domain);
    publish(record);
    doh.faults.set({ delayMs: 6_000 });
    const started = Date.now();
    const response = await verify(tenant, domain);
    const elapsed = Date.now() - started;
    doh.faults.clear();
    expect(response.status).toBe(502);
    expect(elapsed).toBeGreaterThanOrEqual(2_900);
    expect(elapsed).toBeLessThan(5_500);
    await expectNothingChanged(tenant, domain, record);
  }, 15_000);

  it('an organisation looping on verify is held to 30 lookups in 10 minutes (429 with retry-after); another is not', async () => {
    const tenant = await seedTenant(stack);
    const other = await seedTenant(stack);
    const domain = newDomain('loop');
    expect((await putDomains(tenant, [domain])).status).toBe(200);
    expect((await putDomains(other, [domain])).status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await verify(tenant, domain)).status);
    expect(statuses.every((status) => status === 409)).toBe(true);
    const limited = await verify(tenant, domain);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Over the limit, DNS is not asked.
    expect(doh.queries).toHaveLength(30);
    expect((await verify(other, domain)).status).toBe(409);
  });

  it('not configured: 503 NOT_CONFIGURED, and claims still work', async () => {
    const env = Object.fromEntries(Object.entries(stack.env).filter(([name]) => name !== 'DOMAIN_VERIFY_DOH_URL'));
    const unconfigured = composeApp(env);
    const tenant = await seedTenant(stack);
    const domain = newDomain('nocfg');
    const put = await unconfigured.request('PUT', `/orgs/${tenant.organizationId}/domains`, {
      token: tenant.adminToken,
      body: { domains: [domain] },
    });
    expect(put.status).toBe(200);
    const response = await unconfigured.request('POST', `/orgs/${tenant.organizationId}/domains/${domain}/verify`, {
      token: tenant.adminToken,
    });
    expect(response.status).toBe(503);
    expect((await json(response)).error.code).toBe('NOT_CONFIGURED');
    expect(doh.queries).toHaveLength(0);
  });

  it('only the validated domain name reaches it: hostile path input is refused before any query', async () => {
    const tenant = await seedTenant(stack);
    const domain = newDomain('safe');
    expect((await putDomains(tenant, [domain])).status).toBe(200);
    for (const hostile of [
      '127.0.0.1',
      'localhost',
      encodeURIComponent(`${domain}?name=evil.example&type=A`),
      encodeURIComponent(`${domain}&type=A`),
      encodeURIComponent(`${domain}/../x`),
      encodeURIComponent(`${domain}#x`),
      encodeURIComponent('http://evil.example/'),
      encodeURIComponent(`evil.example@${domain}`),
      `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(40)}.example`,
      'xn--bcher-kva.exa mple',
      '%00.example',
    ]) {
      const response = await verify(tenant, hostile);
      expect([400, 404], hostile).toContain(response.status);
    }
    expect(doh.queries).toHaveLength(0);
    // The normal form (lowercase, no trailing dot) is what is asked.
    await verify(tenant, `${domain.toUpperCase()}.`);
    expect(doh.queries.map((q) => q.url)).toEqual([`/dns-query?name=_runstate-challenge.${domain}&type=TXT`]);
  });
});
