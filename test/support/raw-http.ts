/**
 * HTTP as bytes on a socket, for requests no HTTP client would send and for reading back
 * exactly what the server wrote.
 */
import net from 'node:net';

export interface RawReply {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** Writes `data` to a fresh socket and collects what comes back until the server closes it (or `ms`). */
export function rawExchange(port: number, data: string | Buffer, ms = 2_000, closeAfterWrite = false): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ text: Buffer.concat(chunks).toString('utf8'), closed });
    };
    const timer = setTimeout(() => finish(false), ms);
    socket.on('connect', () => {
      socket.write(data);
      if (closeAfterWrite) socket.end();
    });
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
  });
}

/** Splits a byte stream into HTTP responses (Content-Length or chunked framing). */
export function parseResponses(text: string): RawReply[] {
  const out: RawReply[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/')) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const i = line.indexOf(':');
      if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
    }
    let body = rest.slice(end + 4);
    let consumed: number;
    if (headers['content-length'] !== undefined) {
      consumed = Number(headers['content-length']);
      rest = body.slice(consumed);
      body = body.slice(0, consumed);
    } else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
      let decoded = '';
      let i = 0;
      for (;;) {
        const lineEnd = body.indexOf('\r\n', i);
        if (lineEnd < 0) break;
        const size = parseInt(body.slice(i, lineEnd), 16);
        i = lineEnd + 2;
        if (!size) {
          i += 2;
          break;
        }
        decoded += body.slice(i, i + size);
        i += size + 2;
      }
      rest = body.slice(i);
      body = decoded;
    } else {
      rest = '';
    }
    out.push({ status: Number(statusLine!.split(' ')[1]), headers, text: body });
  }
  return out;
}
