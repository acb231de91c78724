/**
 * The 1 MiB body limit (api.md "Limits") as a client meets it: over a real connection, with
 * Content-Length or chunked, on every route a body can reach. The network is the subject here
 * (a chunked body is cut off as it arrives), so these requests travel on a socket.
 */
import { describe, it } from 'vitest';
import type { Expect } from '../support/contract-answers.js';
import { HOOK, JSON_TYPE, MAX_BODY, validSubmission } from '../support/hostile-values.js';
import { expectStillServing, hostileService, post, type Case } from '../support/request-cases.js';
import { multipart } from '../support/attachment-requests.js';

describe('the 1 MiB body limit over the network', () => {
  const s = hostileService('socket');

  it('a body of exactly 1 MiB is read; one byte more, chunked or not, on any route, is 413', async () => {
    const valid = JSON.stringify({ prompt: 'ct', wait: false, callback_url: HOOK });
    const accepted = validSubmission({ wait: false, callback_url: HOOK });
    // Whitespace padding keeps the request itself valid.
    const pad = (n: number) => valid.slice(0, -1) + ' '.repeat(n - Buffer.byteLength(valid)) + '}';
    const tooLarge: Expect = { status: [413], code: ['PAYLOAD_TOO_LARGE'] };
    const cases: Case[] = [
      post('/v1/completions', 'exactly 1 MiB', pad(MAX_BODY), accepted),
      post('/v1/completions', '1 MiB + 1 byte', pad(MAX_BODY + 1), tooLarge),
      post('/v1/completions', '3 MiB', pad(3 * MAX_BODY), tooLarge),
      { ...post('/v1/completions', '2 MiB chunked', pad(2 * MAX_BODY), tooLarge), chunked: true },
      { ...post('/v1/completions', '1 MiB + 1 chunked', pad(MAX_BODY + 1), tooLarge), chunked: true },
      post('/v1/completions', '2 MiB of junk', 'x'.repeat(2 * MAX_BODY), tooLarge),
      post('/v1/completions', '2 MiB wrong content type', 'x'.repeat(2 * MAX_BODY), { status: [400, 413], code: ['INVALID_REQUEST', 'PAYLOAD_TOO_LARGE'] }, { 'content-type': 'text/plain' }),
      post('/v1/chat/completions', '2 MiB chat', JSON.stringify({ model: 'service/auto', messages: [{ role: 'user', content: 'm'.repeat(2 * MAX_BODY) }] }), tooLarge),
      { name: '2 MiB on DELETE', method: 'DELETE', path: '/v1/completions/job_x', headers: JSON_TYPE, body: pad(2 * MAX_BODY), expect: { status: [404, 413], code: ['NOT_FOUND', 'PAYLOAD_TOO_LARGE'] } },
    ];
    await s.expectNoProblems(cases);
  }, 60_000);

  it('with files: 70 MiB, of which all but 1 MiB files; a part over 20 MiB is cut there; chunked or not', async () => {
    const MiB = 1024 * 1024;
    const accepted = validSubmission({ wait: false, callback_url: HOOK });
    const tooLarge: Expect = { status: [413], code: ['PAYLOAD_TOO_LARGE'] };
    const withFiles = (prompt: string, ...sizes: number[]) =>
      JSON.stringify({
        prompt, wait: false, callback_url: HOOK,
        attachments: sizes.map((n, i) => ({ filename: `f${i}.bin`, media_type: 'application/octet-stream', data: Buffer.alloc(n, i).toString('base64') })),
      });
    const request = { name: 'request', data: JSON.stringify({ prompt: 'mp', wait: false, callback_url: HOOK }) };
    const bigPart = multipart([request, { name: 'file', filename: 'huge.bin', type: 'application/octet-stream', data: Buffer.alloc(21 * MiB) }]);
    const okParts = multipart([request, { name: 'file', filename: 'ten.bin', type: 'application/octet-stream', data: Buffer.alloc(10 * MiB, 3) }]);
    const cases: Case[] = [
      post('/v1/completions', '30 MiB of files', withFiles('f', 12 * MiB, 10 * MiB), accepted),
      { ...post('/v1/completions', '30 MiB of files chunked', withFiles('f', 12 * MiB, 10 * MiB), accepted), chunked: true },
      { ...post('/v1/completions', 'over 70 MiB chunked', withFiles('f', 18 * MiB, 18 * MiB, 18 * MiB), tooLarge), chunked: true },
      { ...post('/v1/completions', '2 MiB of prompt beside a file', withFiles('p'.repeat(2 * MiB), 1_000), tooLarge), chunked: true },
      { ...post('/v1/completions', 'multipart 10 MiB', '', accepted, { 'content-type': okParts.contentType }), body: okParts.body },
      { ...post('/v1/completions', 'multipart part of 21 MiB', '', tooLarge, { 'content-type': bigPart.contentType }), body: bigPart.body, chunked: true },
    ];
    await s.expectNoProblems(cases);
  }, 120_000);

  it('still answers normal requests afterwards', () => expectStillServing(s.t));
});
