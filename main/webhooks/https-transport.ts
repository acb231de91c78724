import { Agent, request, type AgentOptions } from 'node:https';

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
 */
export function httpsTransport(tls: Pick<AgentOptions, 'ca'> = {}): WebhookTransport {
  const agent = new Agent({ keepAlive: true, ...tls });

  const post = (r: WebhookRequest, mayRetry: boolean): Promise<number> =>
    new Promise((resolve, reject) => {
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
