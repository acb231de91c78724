import { createHmac } from 'node:crypto';

/**
 * `X-Service-Signature` (api.md "Webhook signature"): HMAC-SHA256 with the account's signing
 * secret over `<timestamp>.<raw body>`, hex, after `sha256=`. `body` is exactly the bytes
 * sent, so a receiver verifies before it parses.
 */
export function signature(secret: string, timestamp: number, body: Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')}`;
}
