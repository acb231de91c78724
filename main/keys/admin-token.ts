import { createHmac, timingSafeEqual } from 'node:crypto';
import { adminToken, rotateAdminToken } from '../core/runtime-files.js';
import { Listeners } from '../core/listeners.js';

/**
 * The dashboard's token as the running service holds it: read from the data dir at start,
 * replaced by a rotation, after which every stream opened with the old one is ended.
 */
export class AdminToken {
  private token: string;
  private readonly rotated = new Listeners();

  constructor(private readonly dataDir: string) {
    this.token = adminToken(dataDir);
  }

  /**
   * Every API request asks this first, with an API key's secret as a rule: a secret of
   * another length is refused before either is copied into a buffer (the length is no
   * secret: every token has the same).
   */
  matches(secret: string): boolean {
    if (secret.length !== this.token.length) return false;
    const given = Buffer.from(secret);
    const mine = Buffer.from(this.token);
    return given.length === mine.length && timingSafeEqual(given, mine);
  }

  /** A new token in the data dir and here; the old one is refused from now on. */
  rotate(): void {
    this.token = rotateAdminToken(this.dataDir);
    this.rotated.emit();
  }

  /** Returns the function that stops listening. */
  onRotate(listener: () => void): () => void {
    return this.rotated.on(listener);
  }

  /** This server's answer to a command's challenge (see serverProof). */
  prove(nonce: string, url: string): string {
    return serverProof(this.token, nonce, url);
  }
}

/**
 * How a command knows that what listens at the address in server.json is the ChatBridge of
 * its data dir before it sends the admin token there: the server answers a fresh nonce with
 * an HMAC keyed by the token, which only a holder of the data dir can compute. The server's
 * own address is part of the message, so a listener that relays the challenge to the real
 * server gets a proof for the wrong address.
 */
export function serverProof(token: string, nonce: string, url: string): string {
  return createHmac('sha256', token).update(`chatbridge-server-proof\n${nonce}\n${url}`).digest('base64url');
}
