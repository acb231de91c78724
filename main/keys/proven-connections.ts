import { Agent, type ClientRequestArgs } from 'node:http';
import type { Duplex } from 'node:stream';
import { provenConnection } from './server-proof.js';

/**
 * The connections a command holding the admin token makes to the server of its data dir:
 * every one of them proves, on itself and before any request goes on it, that what answers
 * holds the token as the server of `url` (provenConnection). A server proven once may stop
 * and another program take its port while a command waits; the command's next connection
 * then fails its proof, and neither the admin token nor a key is sent on it.
 */
export class ProvenConnections extends Agent {
  constructor(
    private readonly token: string,
    private readonly url: string,
  ) {
    super({ keepAlive: true });
  }

  override createConnection(options: ClientRequestArgs, callback: (error: Error | null, socket: Duplex) => void): undefined {
    provenConnection(`http://${options.host}:${options.port}`, this.token, this.url).then(
      (socket) => callback(null, socket),
      (error: Error) => callback(error, undefined as never),
    );
    return undefined;
  }
}
