/**
 * Malformed HTTP on a raw socket: requests no HTTP client would send (bad request lines,
 * smuggling headers, missing or empty Host, oversized headers, random bytes, pipelined
 * garbage, half-sent bodies, CONNECT, connections dropped mid-request). Each is answered with
 * a 4xx in the envelope or hung up on, and the server lives on. The socket is the subject.
 */
import { describe, expect, it } from 'vitest';
import { REQUEST_ID, verifyEnvelope } from '../support/contract-answers.js';
import { parseResponses, rawExchange } from '../support/raw-http.js';
import { expectStillServing, hostileService } from '../support/request-cases.js';
import { Rng } from '../support/seeded-rng.js';

describe('malformed HTTP', () => {
  const s = hostileService('socket');

  it('malformed HTTP on a raw socket gets a 4xx in the envelope, and the server lives on', async () => {
    const port = Number(new URL(s.t.url).port);
    const host = `Host: 127.0.0.1:${port}\r\n`;
    const auth = `Authorization: Bearer ${s.keys[1]}\r\n`;
    const rng = new Rng(0x5ec);
    const cases: { name: string; data: string | Buffer; statuses: number[]; codes: string[] }[] = [
      { name: 'not HTTP', data: 'hello\r\n\r\n', statuses: [400], codes: ['INVALID_REQUEST'] },
      { name: 'HTTP/9.9', data: `GET /v1/status HTTP/9.9\r\n${host}\r\n`, statuses: [400, 505], codes: ['INVALID_REQUEST'] },
      { name: 'unknown method', data: `BREW /v1/status HTTP/1.1\r\n${host}\r\n`, statuses: [400, 404, 405, 501], codes: ['INVALID_REQUEST', 'NOT_FOUND'] },
      { name: 'space in path', data: `GET /v1/sta tus HTTP/1.1\r\n${host}\r\n`, statuses: [400], codes: ['INVALID_REQUEST'] },
      { name: 'NUL in request line', data: `GET /v1/status\0 HTTP/1.1\r\n${host}\r\n`, statuses: [400], codes: ['INVALID_REQUEST'] },
      { name: 'header without colon', data: `GET /v1/status HTTP/1.1\r\n${host}garbage\r\n\r\n`, statuses: [400], codes: ['INVALID_REQUEST'] },
      { name: 'space in header name', data: `GET /v1/status HTTP/1.1\r\n${host}Bad Header: x\r\n\r\n`, statuses: [400], codes: ['INVALID_REQUEST'] },
      { name: 'control char in header value', data: `GET /v1/status HTTP/1.1\r\n${host}X-A: a\u0001b\r\n\r\n`, statuses: [400], codes: ['INVALID_REQUEST'] },
      { name: 'obsolete line folding', data: `GET /v1/status HTTP/1.1\r\n${host}X-A: a\r\n folded\r\n\r\n`, statuses: [400], codes: ['INVALID_REQUEST'] },
      { name: 'Content-Length and Transfer-Encoding', data: `POST /v1/completions HTTP/1.1\r\n${host}${auth}Content-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`, statuses: [400], codes: ['INVALID_REQUEST'] },
      { name: 'two different Content-Lengths', data: `POST /v1/completions HTTP/1.1\r\n${host}${auth}Content-Length: 1\r\nContent-Length: 2\r\n\r\nab`, statuses: [400], codes: ['INVALID_REQUEST'] },
      { name: 'negative Content-Length', data: `POST /v1/completions HTTP/1.1\r\n${host}${auth}Content-Length: -1\r\n\r\n`, statuses: [400], codes: ['INVALID_REQUEST'] },
      { name: 'Content-Length not a number', data: `POST /v1/completions HTTP/1.1\r\n${host}${auth}Content-Length: abc\r\n\r\n`, statuses: [400], codes: ['INVALID_REQUEST'] },
      { name: 'bad chunk size', data: `POST /v1/completions HTTP/1.1\r\n${host}${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nab\r\n0\r\n\r\n`, statuses: [400], codes: ['INVALID_REQUEST'] },
      { name: 'Transfer-Encoding gzip', data: `POST /v1/completions HTTP/1.1\r\n${host}${auth}Content-Type: application/json\r\nTransfer-Encoding: gzip\r\n\r\n`, statuses: [400, 501], codes: ['INVALID_REQUEST'] },
      { name: 'bare LF line ends', data: `GET /v1/status HTTP/1.1\n${host.replace('\r\n', '\n')}\n`, statuses: [200, 400, 401], codes: ['INVALID_REQUEST', 'UNAUTHORIZED'] },
      { name: 'double space in request line', data: `GET  /v1/status HTTP/1.1\r\n${host}Connection: close\r\n\r\n`, statuses: [400, 401], codes: ['INVALID_REQUEST', 'UNAUTHORIZED'] },
      { name: 'missing Host on HTTP/1.1', data: `GET /v1/status HTTP/1.1\r\n${auth}\r\n`, statuses: [400, 403], codes: ['INVALID_REQUEST', 'FORBIDDEN'] },
      // Node keeps the first of two Host headers (RFC 9112 would have a 400); either way the answer is whole.
      { name: 'two Host headers', data: `GET /v1/status HTTP/1.1\r\n${host}Host: evil.com\r\n${auth}Connection: close\r\n\r\n`, statuses: [200, 400, 403], codes: ['INVALID_REQUEST', 'FORBIDDEN'] },
      { name: 'missing Host on HTTP/1.0', data: `GET /v1/status HTTP/1.0\r\n${auth}\r\n`, statuses: [400, 403], codes: ['INVALID_REQUEST', 'FORBIDDEN'] },
      { name: 'non-ASCII Host', data: `GET /v1/status HTTP/1.1\r\nHost: lоcalhost\r\n${auth}\r\n`, statuses: [400, 403], codes: ['INVALID_REQUEST', 'FORBIDDEN'] },
      { name: 'headers over 16 KiB', data: `GET /v1/status HTTP/1.1\r\n${host}X-Junk: ${'j'.repeat(20_000)}\r\n\r\n`, statuses: [413, 431], codes: ['PAYLOAD_TOO_LARGE'] },
      { name: 'URL over 16 KiB', data: `GET /v1/completions/${'u'.repeat(20_000)} HTTP/1.1\r\n${host}\r\n`, statuses: [413, 414, 431], codes: ['PAYLOAD_TOO_LARGE', 'INVALID_REQUEST'] },
      { name: '2 000 headers', data: `GET /v1/status HTTP/1.1\r\n${host}${Array.from({ length: 2_000 }, (_, i) => `X-${i}: v`).join('\r\n')}\r\n\r\n`, statuses: [200, 400, 401, 413, 431], codes: ['PAYLOAD_TOO_LARGE', 'INVALID_REQUEST', 'UNAUTHORIZED'] },
    ];
    // An empty Host on every endpoint, which inject cannot send (host-header.test.ts has the
    // other names a rebinding page may bring): 403 like any foreign Host.
    for (const target of ['GET /v1/status', 'GET /v1/models', 'GET /v1/openapi.json', 'GET /v1/completions/job_nope', 'DELETE /v1/completions/job_nope', 'POST /v1/completions', 'POST /v1/chat/completions', 'GET /nowhere']) {
      const body = target.startsWith('POST') ? 'Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}' : '\r\n';
      cases.push({ name: `empty Host on ${target}`, data: `${target} HTTP/1.1\r\nHost: \r\n${auth}Connection: close\r\n${body}`, statuses: [403], codes: ['FORBIDDEN'] });
    }
    for (let i = 0; i < 12; i++) {
      const bytes = Buffer.from(Array.from({ length: rng.int(1, 200) }, () => rng.int(0, 255)));
      cases.push({ name: `random bytes #${i}`, data: Buffer.concat([bytes, Buffer.from('\r\n\r\n')]), statuses: [400], codes: ['INVALID_REQUEST'] });
    }

    const problems: string[] = [];
    await Promise.all(
      cases.map(async (c) => {
        const { text } = await rawExchange(port, c.data);
        const [reply] = parseResponses(text);
        if (!reply) return problems.push(`${c.name}: no HTTP response (${JSON.stringify(text.slice(0, 80))})`);
        if (!c.statuses.includes(reply.status)) problems.push(`${c.name}: status ${reply.status}, expected ${c.statuses.join('|')}`);
        const requestId = reply.headers['x-request-id'];
        if (!requestId || !REQUEST_ID.test(requestId)) problems.push(`${c.name}: X-Request-Id header ${JSON.stringify(requestId)}`);
        if (reply.status >= 400) {
          let body: unknown;
          try {
            body = JSON.parse(reply.text);
          } catch {
            return problems.push(`${c.name}: body is not JSON: ${reply.text.slice(0, 100)}`);
          }
          // A header overflow is answered 431 by HTTP custom; only the code is the contract's there.
          const status = reply.status === 431 ? 413 : reply.status;
          for (const p of verifyEnvelope(body, status, requestId, { code: c.codes })) {
            if (!p.startsWith('INVALID_REQUEST without details.field')) problems.push(`${c.name}: ${p}`);
          }
        }
        return undefined;
      }),
    );

    // Pipelining: a good request, then garbage on the same connection. Whatever is answered is whole:
    // the 200, and/or a 400 for the garbage, each with its request id.
    const pipelined = await rawExchange(port, `GET /v1/status HTTP/1.1\r\n${host}${auth}\r\nGARBAGE\r\n\r\n`);
    const replies = parseResponses(pipelined.text);
    if (replies.length === 0) problems.push('pipelined: no answer at all');
    for (const r of replies) {
      if (r.status !== 200 && r.status !== 400) problems.push(`pipelined: answered ${r.status}`);
      if (!REQUEST_ID.test(r.headers['x-request-id'] ?? '')) problems.push(`pipelined: a ${r.status} without X-Request-Id`);
    }
    // A body shorter than its Content-Length, then the client hangs up: no answer is owed, nothing breaks.
    await rawExchange(port, `POST /v1/completions HTTP/1.1\r\n${host}${auth}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"prompt"`, 300, true);
    // CONNECT is not a request this server serves: refusing or hanging up are both fine.
    const connect = parseResponses((await rawExchange(port, `CONNECT 127.0.0.1:${port} HTTP/1.1\r\n${host}\r\n`, 1_000)).text);
    if (connect[0] && (connect[0].status < 400 || connect[0].status >= 500)) problems.push(`CONNECT answered ${connect[0].status}`);
    // Many connections opened and dropped at once, some mid-request.
    await Promise.all(
      Array.from({ length: 100 }, (_, i) => rawExchange(port, i % 2 ? '' : `GET /v1/status HTTP/1.1\r\n${host}`, 50, true)),
    );

    const alive = await s.t.api('GET', '/v1/status', { key: s.keys[2]! });
    expect(alive.status).toBe(200);
    expect(problems, problems.join('\n')).toEqual([]);
  }, 60_000);

  it('still answers normal requests afterwards', () => expectStillServing(s.t));
});
