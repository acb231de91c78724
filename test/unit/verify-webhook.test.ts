/**
 * verifyWebhook of chatbridge/client against deliveries signed as the service signs them
 * (main/webhooks/signature.ts): genuine ones pass over the raw bytes, forgeries, stale or
 * missing timestamps and tampered bodies are refused with a reason.
 */
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '../../main/client/index.js';
import { signature } from '../../main/webhooks/signature.js';

const SECRET = 'whsec_0123456789abcdefghijklmnopqrstuv';
const NOW = Date.UTC(2026, 10, 21, 10, 0, 0);
// Non-ASCII and spacing a re-serialisation would change: the check must be over these bytes.
const RAW = Buffer.from('{"id":"job_1", "status":"succeeded","response":"héllo — ✓","metadata":{}}');

function reasonOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
  return 'accepted';
}

describe('verifyWebhook', () => {
  const timestamp = NOW / 1000;
  const headers: Record<string, string> = { 'x-service-timestamp': String(timestamp), 'x-service-signature': signature(SECRET, timestamp, RAW) };

  it('returns the job of a genuine delivery, from Node headers, fetch Headers or any-case names', () => {
    expect(verifyWebhook(RAW, headers, SECRET, { now: NOW })).toMatchObject({ id: 'job_1', response: 'héllo — ✓' });
    expect(verifyWebhook(new Uint8Array(RAW), new Headers(headers), SECRET, { now: NOW }).id).toBe('job_1');
    const shouted = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), [v]]));
    expect(verifyWebhook(RAW.toString('utf8'), shouted, SECRET, { now: NOW }).id).toBe('job_1');
  });

  it('refuses forgeries and tampering', () => {
    expect(reasonOf(() => verifyWebhook(RAW, headers, 'whsec_other', { now: NOW }))).toBe('bad_signature');
    const tampered = Buffer.from(RAW.toString('utf8').replace('succeeded', 'succeedeD'));
    expect(reasonOf(() => verifyWebhook(tampered, headers, SECRET, { now: NOW }))).toBe('bad_signature');
    const respaced = Buffer.from(JSON.stringify(JSON.parse(RAW.toString('utf8'))));
    expect(reasonOf(() => verifyWebhook(respaced, headers, SECRET, { now: NOW }))).toBe('bad_signature');
    const sig = headers['x-service-signature']!;
    for (const bad of [sig.slice(0, -1), `${sig}0`, sig.replace('sha256=', 'sha1='), '', 'sha256=zz']) {
      expect(reasonOf(() => verifyWebhook(RAW, { ...headers, 'x-service-signature': bad }, SECRET, { now: NOW })), bad).toBe('bad_signature');
    }
  });

  it('refuses timestamps outside the window, 300 s by default, and missing headers', () => {
    expect(reasonOf(() => verifyWebhook(RAW, headers, SECRET, { now: NOW + 300_000 }))).toBe('accepted');
    expect(reasonOf(() => verifyWebhook(RAW, headers, SECRET, { now: NOW + 301_000 }))).toBe('stale_timestamp');
    expect(reasonOf(() => verifyWebhook(RAW, headers, SECRET, { now: NOW - 301_000 }))).toBe('stale_timestamp');
    expect(reasonOf(() => verifyWebhook(RAW, headers, SECRET, { now: NOW + 100_000, toleranceSeconds: 60 }))).toBe('stale_timestamp');
    // The timestamp is signed too: moving it breaks the signature.
    const moved = { ...headers, 'x-service-timestamp': String(timestamp + 1) };
    expect(reasonOf(() => verifyWebhook(RAW, moved, SECRET, { now: NOW }))).toBe('bad_signature');
    expect(reasonOf(() => verifyWebhook(RAW, { ...headers, 'x-service-timestamp': '17e8' }, SECRET, { now: NOW }))).toBe('stale_timestamp');
    expect(reasonOf(() => verifyWebhook(RAW, {}, SECRET, { now: NOW }))).toBe('missing_headers');
  });
});
