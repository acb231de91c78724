import { Agent, request, type AgentOptions } from 'node:https';
import { isIP } from 'node:net';
import { isPublicAddress, NotPublicAddress, publicOnlyLookup } from './public-address.js';

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

/** Which receivers may be called: (H) only public internet addresses, unless the operator allows private ones. */
export interface AddressPolicy {
  publicOnly: boolean;
}

/**
 * Node's https with certificates verified against the system's authorities, plus those of
 * `NODE_EXTRA_CA_CERTS` (how a self-signed local receiver is trusted) or `tls.ca` in their
 * place. Redirects are never followed: a 3xx is resolved like any other status. Connections
 * are kept alive, so a receiver that gets many deliveries pays the TLS handshake once.
 *
 * With `publicOnly`, the agent's own `lookup` gives the socket public addresses only (see
 * publicOnlyLookup), and an IP literal, which Node connects to without a lookup, is checked
 * here: a private, loopback, link-local, CGNAT or multicast receiver is never connected to.
 */
export function httpsTransport(options: Pick<AgentOptions, 'ca'> & Partial<AddressPolicy> = {}): WebhookTransport {
  const { publicOnly = false, ...tls } = options;
  const agent = new Agent({ keepAlive: true, ...tls, ...(publicOnly ? { lookup: publicOnlyLookup } : {}) });

  const post = (r: WebhookRequest, mayRetry: boolean): Promise<number> =>
    new Promise((resolve, reject) => {
      const host = new URL(r.url).hostname.replace(/^\[|\]$/g, '');
      if (publicOnly && isIP(host) !== 0 && !isPublicAddress(host)) {
        reject(new NotPublicAddress(`${host} is not a public address`));
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
