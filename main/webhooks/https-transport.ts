import { Agent, request, type AgentOptions } from 'node:https';
import { isIP } from 'node:net';
import { createSecureContext } from 'node:tls';
import { addressRefusal, checkedLookup, NotPublicAddress, type AddressPolicy } from './public-address.js';

export type { AddressPolicy } from './public-address.js';

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: Buffer;
  /** Aborting it ends the attempt at once, wherever it stands (DNS, connect, TLS, answer). */
  signal: AbortSignal;
}

/** How the sender reaches receivers; tests may trust their own certificate authority. */
export interface WebhookTransport {
  /**
   * POSTs the request. Resolves with the HTTP status once the whole answer has arrived (its
   * body is read and dropped); rejects when no complete answer came: refused, TLS failure,
   * cut off, aborted.
   */
  post(request: WebhookRequest): Promise<number>;
  /** Closes the connections kept alive between deliveries. */
  close(): void;
}

/**
 * Node's https with certificates verified against the system's authorities, plus those of
 * `NODE_EXTRA_CA_CERTS` (how a self-signed local receiver is trusted) or `tls.ca` in their
 * place. Redirects are never followed: a 3xx is resolved like any other status. Connections
 * are kept alive, so a receiver that gets many deliveries pays the TLS handshake once.
 *
 * With `publicOnly` or a deny-list, the agent's own `lookup` gives the socket only the
 * addresses the policy allows (see checkedLookup), and an IP literal, which Node connects to
 * without a lookup, is checked here: with `publicOnly`, a private, loopback, link-local,
 * CGNAT or multicast receiver is never connected to, nor, ever, one the operator denies.
 *
 * The TLS context (the authorities' certificates, parsed) is made once here: left to Node,
 * every new connection builds its own, about a millisecond of CPU each, which a burst of
 * deliveries to a receiver that refuses connections pays on every attempt.
 */
export function httpsTransport(options: Pick<AgentOptions, 'ca'> & Partial<AddressPolicy> = {}): WebhookTransport {
  const { publicOnly = false, denied, ...tls } = options;
  const policy: AddressPolicy = { publicOnly, ...(denied ? { denied } : {}) };
  const checked = publicOnly || denied !== undefined;
  const agent = new Agent({
    keepAlive: true,
    ...tls,
    secureContext: createSecureContext(tls),
    ...(checked ? { lookup: checkedLookup(policy) } : {}),
  });

  const post = (r: WebhookRequest, mayRetry: boolean): Promise<number> =>
    new Promise((resolve, reject) => {
      const host = new URL(r.url).hostname.replace(/^\[|\]$/g, '');
      const refused = isIP(host) !== 0 ? addressRefusal(host, policy) : null;
      if (refused) {
        reject(new NotPublicAddress(`${host} is ${refused}`));
        return;
      }
      const req = request(
        r.url,
        { method: 'POST', agent, signal: r.signal, headers: { ...r.headers, 'content-length': String(r.body.length) } },
        (res) => {
          res.on('error', reject);
          res.once('close', () => (res.complete ? resolve(res.statusCode!) : reject(new Error('the answer was cut off'))));
          res.resume();
        },
      );
      req.on('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive connection the receiver closed as this request went out: Node's
        // documented remedy is one retry on a fresh connection.
        if (mayRetry && req.reusedSocket && error.code === 'ECONNRESET' && !r.signal.aborted) resolve(post(r, false));
        else reject(error);
      });
      req.end(r.body);
    });

  return { post: (r) => post(r, true), close: () => agent.destroy() };
}
