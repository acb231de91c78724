/**
 * Webhooks in the hosted profile (api.md Events, the (H) rules): the body without
 * agent_name, content_pruned_at and queue_position; only public addresses, checked on the
 * address connected (an IPv6 form embedding an IPv4 address judged by that one too), unless
 * the operator allows private receivers; never one of the operator's deny-list; redirects not followed.
 * The receiver is a real HTTPS server on loopback, so it is reached only with the setting.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { httpsTransport, type AddressPolicy } from '../../main/webhooks/https-transport.js';
import { checkDeniedRange, isDeniedAddress, isPublicAddress } from '../../main/webhooks/public-address.js';
import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { startTestService, type TestService } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';
import { until } from '../support/until.js';
import { makeCertificate, verifySignature, WebhookReceiver, type Certificate, type Responder } from '../support/webhook-receiver.js';

let cert: Certificate;
beforeAll(() => {
  cert = makeCertificate();
});
afterAll(() => cert.remove());

let t: TestService | undefined;
let clock: ManualClock;
const receivers: WebhookReceiver[] = [];
afterEach(async () => {
  await t?.stop();
  t = undefined;
  for (const r of receivers.splice(0)) await r.close();
});

/** A hosted service trusting the test certificate; the address policy is the service's own. */
async function start(allowPrivateWebhooks: boolean) {
  clock = new ManualClock();
  t = await startTestService({
    listen: false,
    profile: 'hosted',
    agents: { chatgpt: 1 },
    clock,
    allowPrivateWebhooks,
    webhookTransport: (policy: AddressPolicy) => httpsTransport({ ca: cert.cert, ...policy }),
  });
  return t;
}

/** The dashboard's token: the operator, who acts for no account. */
const adminKey = () => readFileSync(join(t!.dataDir, 'admin-token'), 'utf8').trim();

async function receiver(respond?: Responder) {
  const r = await WebhookReceiver.start(cert, respond);
  receivers.push(r);
  return r;
}

/** The delivery log of the job once its first attempt is recorded. */
async function firstAttempt(id: string) {
  await until(async () => (await t!.driver.deliveryAttempts(id)).length >= 1 && t!.service.webhookSender.inFlightCount() === 0, 15_000, 'an attempt');
  return (await t!.driver.deliveryAttempts(id))[0]!;
}

describe('webhooks (H)', () => {
  it('sends the job without agent_name, content_pruned_at and queue_position, as chatbridge-webhooks/1', async () => {
    await start(true);
    const hook = await receiver();
    const r = await t!.api('POST', '/v1/completions', { body: { prompt: 'p', callback_url: hook.url(), metadata: { k: 'v' } } });
    expect(r.status).toBe(200);
    const [got] = await hook.waitFor(1);
    expect(got!.headers['user-agent']).toBe('chatbridge-webhooks/1');
    const body = JSON.parse(got!.body.toString('utf8'));
    expect(Object.keys(body).sort()).toEqual(
      ['agent_id', 'attachments', 'attempts', 'conversation_ref', 'created_at', 'error', 'finished_at', 'id', 'metadata', 'model_used', 'provider', 'queue_ms', 'response', 'run_ms', 'status', 'variant'].sort(),
    );
    expect(body).toMatchObject({ id: r.body.id, status: 'succeeded', provider: null, metadata: { k: 'v' }, variant: null, model_used: null, created_at: r.body.created_at });
    expect(body.created_at).toMatch(/\.\d{3}Z$/);
  });

  it('never calls a loopback receiver without the setting: not by IP literal, not by a name that resolves to 127.0.0.1', async () => {
    await start(false);
    const hook = await receiver();
    const port = new URL(hook.url()).port;
    for (const url of [hook.url(), `https://localhost:${port}/hook`, `https://[::ffff:127.0.0.1]:${port}/hook`]) {
      const r = await t!.api('POST', '/v1/completions', { body: { prompt: 'p', callback_url: url } });
      expect(r.status).toBe(200);
      const attempt = await firstAttempt(r.body.id);
      expect(attempt.status_code).toBeNull();
      expect(attempt.error).toMatch(/not a public address/);
      // The five-attempt schedule goes on (a receiver may be fixed), each attempt refused the same way.
      expect(await t!.driver.delivery(r.body.id)).toMatchObject({ state: 'pending', round_attempts: 1 });
    }
    expect(hook.received).toHaveLength(0);
  });

  it('follows no redirect: a 3xx is a failed attempt and its Location is never called', async () => {
    await start(true);
    const target = await receiver();
    const redirecting = await receiver(() => ({ status: 307, headers: { location: target.url('/elsewhere') } }));
    const r = await t!.api('POST', '/v1/completions', { body: { prompt: 'p', callback_url: redirecting.url() } });
    const attempt = await firstAttempt(r.body.id);
    expect(attempt.status_code).toBe(307);
    expect(redirecting.received).toHaveLength(1);
    expect(target.received).toHaveLength(0);
    expect((await t!.driver.delivery(r.body.id))!.state).toBe('pending');
  });
});

describe("each account's own signing secret (H)", () => {
  it("signs each account's deliveries with that account's secret, which verifies no other account's", async () => {
    await start(true);
    const hook = await receiver();
    const b = await t!.createAccount('b');
    const fromA = await t!.api('POST', '/v1/completions', { body: { prompt: 'a', callback_url: hook.url('/a') } });
    const fromB = await t!.api('POST', '/v1/completions', { body: { prompt: 'b', callback_url: hook.url('/b') }, key: b.key });
    expect([fromA.status, fromB.status]).toEqual([200, 200]);
    await hook.waitFor(2);
    const got = (id: string) => hook.received.find((r) => JSON.parse(r.body.toString('utf8')).id === id)!;

    const secretA = (await t!.api('GET', '/v1/webhooks/secret')).body.secret;
    const secretB = (await t!.api('GET', '/v1/webhooks/secret', { key: b.key })).body.secret;
    expect(secretA).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    expect(secretB).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    expect(secretB).not.toBe(secretA);
    expect(verifySignature(secretA, got(fromA.body.id), clock.now())).toBe(true);
    expect(verifySignature(secretB, got(fromB.body.id), clock.now())).toBe(true);
    expect(verifySignature(secretB, got(fromA.body.id), clock.now())).toBe(false);
    expect(verifySignature(secretA, got(fromB.body.id), clock.now())).toBe(false);
    // Nor does the service's own secret, the one the operator sees.
    const operators = (await t!.api('GET', '/admin/v1/webhooks/secret', { key: adminKey() })).body.secret;
    expect([secretA, secretB]).not.toContain(operators);
    expect(verifySignature(operators, got(fromA.body.id), clock.now())).toBe(false);
  });

  it("is shown and rotated by the account's own key only: a rotation by B leaves A's secret and A's deliveries alone", async () => {
    await start(true);
    const hook = await receiver();
    const b = await t!.createAccount('b');
    const secretA = (await t!.api('GET', '/v1/webhooks/secret')).body.secret;
    const secretB = (await t!.api('GET', '/v1/webhooks/secret', { key: b.key })).body.secret;
    const rotated = await t!.api('POST', '/v1/webhooks/secret/rotate', { key: b.key });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(secretB);
    expect((await t!.api('GET', '/v1/webhooks/secret', { key: b.key })).body.secret).toBe(rotated.body.secret);
    expect((await t!.api('GET', '/v1/webhooks/secret')).body.secret).toBe(secretA);

    // No route names another account: the admin token, which acts for none, sees no account's secret.
    const asAdmin = { key: adminKey() };
    expect((await t!.api('GET', '/v1/webhooks/secret', asAdmin)).status).toBe(403);
    expect((await t!.api('POST', '/v1/webhooks/secret/rotate', asAdmin)).status).toBe(403);
    expect((await t!.api('GET', '/v1/webhooks/secret', { key: b.key })).body.secret).toBe(rotated.body.secret);
    // A read-only key of the account is not enough either.
    const readOnly = await t!.createKey(['completions:read']);
    expect((await t!.api('GET', '/v1/webhooks/secret', { key: readOnly })).body.error.code).toBe('FORBIDDEN');

    const r = await t!.api('POST', '/v1/completions', { body: { prompt: 'b', callback_url: hook.url() }, key: b.key });
    const [got] = await hook.waitFor(1);
    expect(JSON.parse(got!.body.toString('utf8')).id).toBe(r.body.id);
    expect(verifySignature(rotated.body.secret, got!, clock.now())).toBe(true);
    expect(verifySignature(secretB, got!, clock.now())).toBe(false);
  });
});

describe('public addresses', () => {
  it('refuses private, loopback, link-local, CGNAT, multicast and their IPv6 equivalents', () => {
    const notPublic = [
      '127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '100.127.255.254',
      '0.0.0.0', '224.0.0.1', '239.255.255.250', '255.255.255.255', '198.18.0.1',
      '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1', 'fec0::1',
      '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '64:ff9b::a00:1', '2002:c0a8:101::1', 'not-an-ip',
      // IPv4-compatible (::/96) and IPv4-mapped (::ffff:0:0/96) forms of any address, local-use
      // NAT64 (64:ff9b:1::/48), Teredo (2001::/32, which tunnels to an address it encodes).
      '::8.8.8.8', '::808:808', '::ffff:8.8.8.8', '::ffff:808:808', '64:ff9b:1::a00:1', '64:ff9b:1:ffff::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001::1',
      // IPv4-translated (::ffff:0:0:0/96), of any address; NAT64 and 6to4 of private and loopback ones.
      '::ffff:0:7f00:1', '::ffff:0:127.0.0.1', '::ffff:0:808:808', '64:ff9b::7f00:1', '64:ff9b::127.0.0.1', '64:ff9b::a9fe:a9fe', '2002:7f00:1::', '2002:a9fe:a9fe::1',
    ];
    const publicOnes = ['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2001:4860:4860::8888', '64:ff9b::808:808', '2001:1::1'];
    const none: string[] = [];
    expect(notPublic.filter((a) => isPublicAddress(a, none))).toEqual([]);
    expect(publicOnes.filter((a) => !isPublicAddress(a, none))).toEqual([]);
  });

  it("refuses the host's own addresses, public ones included", () => {
    expect(isPublicAddress('8.8.4.4', ['8.8.4.4', '2606:4700::1'])).toBe(false);
    expect(isPublicAddress('64:ff9b::8.8.4.4', ['8.8.4.4'])).toBe(false);
    expect(isPublicAddress('2606:4700::1', ['8.8.4.4', '2606:4700::1'])).toBe(false);
    expect(isPublicAddress('::ffff:8.8.4.4', ['8.8.4.4'])).toBe(false);
    expect(isPublicAddress('8.8.4.4', ['8.8.8.8'])).toBe(true);
    // By default, the addresses of this machine's interfaces.
    const mine = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
    expect(mine.filter((a) => isPublicAddress(a))).toEqual([]);
  });
});

describe("the operator's deny-list", () => {
  it('holds addresses and ranges, and every IPv6 form that embeds one of its IPv4 addresses', () => {
    const denied = ['203.0.113.0/24', '2001:db8:1::/48', '198.51.100.7'];
    const inside = ['203.0.113.9', '::ffff:203.0.113.9', '::ffff:0:cb00:7109', '64:ff9b::203.0.113.9', '2002:cb00:7109::1', '2001:db8:1:2::3', '198.51.100.7', '2001:0:4136:e378:8000:63bf:34ff:8ef6'];
    const outside = ['203.0.114.1', '2001:db8:2::1', '198.51.100.8', '64:ff9b::cb00:7209', 'not-an-ip'];
    expect(inside.filter((a) => !isDeniedAddress(a, denied))).toEqual([]);
    expect(outside.filter((a) => isDeniedAddress(a, denied))).toEqual([]);
    expect(['10.0.0.0/8', '::1', 'fe80::/10'].map(checkDeniedRange)).toEqual(['10.0.0.0/8', '::1', 'fe80::/10']);
    for (const bad of ['10.0.0.0/33', '::/129', 'example.com', '10.0.0.0/8/1', '10.0.0/8']) expect(() => checkDeniedRange(bad)).toThrow(RangeError);
  });

  it('keeps every webhook from a denied receiver, private ones allowed or not, by IP literal or by name', async () => {
    await start(true);
    await t!.driver.settings.setWebhookDeny(['127.0.0.0/8']);
    const hook = await receiver();
    const port = new URL(hook.url()).port;
    for (const url of [hook.url(), `https://localhost:${port}/hook`, `https://[::ffff:0:7f00:1]:${port}/hook`]) {
      const r = await t!.api('POST', '/v1/completions', { body: { prompt: 'p', callback_url: url } });
      const attempt = await firstAttempt(r.body.id);
      expect([attempt.status_code, attempt.error]).toEqual([null, expect.stringMatching(/on the operator's deny-list/)]);
    }
    expect(hook.received).toHaveLength(0);
    // Taken off the list, the receiver is called.
    await t!.driver.settings.setWebhookDeny([]);
    const r = await t!.api('POST', '/v1/completions', { body: { prompt: 'p', callback_url: hook.url() } });
    expect((await firstAttempt(r.body.id)).status_code).toBe(204);
  });
});
