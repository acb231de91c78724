/**
 * What every answer of the API must be, whatever was asked (api.md "Errors", decisions.md):
 * an X-Request-Id of `req_…`; an error exactly `{ error: { code, message, request_id,
 * details? } }`, its code one of the catalog's travelling with that code's HTTP status (the
 * catalog itself is held to api.md's table in test/unit/error-catalog.test.ts), its
 * request_id the header's, an INVALID_REQUEST naming its field; a 429 with a Retry-After in
 * seconds. A case adds what it expects of its own answer.
 */
import { ERROR_STATUS } from '../../main/core/errors.js';

export const REQUEST_ID = /^req_[0-9A-Za-z]+$/;

export interface Expect {
  /** Accepted HTTP statuses. */
  status: number[];
  /** For an error answer: the accepted codes (default: whichever the status stands for). */
  code?: string[];
  /** For an error answer: the accepted values of `details.field`. */
  field?: string[];
  /** Further checks of the parsed body of a success; returns a problem or undefined. */
  check?: (body: any, reply: Reply) => string | undefined;
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  text: string;
}

/** Every rule that holds for every answer, plus what the case expects. Returns the problems. */
export function verify(method: string, expect: Expect, reply: Reply): string[] {
  const problems: string[] = [];
  const snippet = reply.text.slice(0, 200);
  if (!expect.status.includes(reply.status)) {
    problems.push(`status ${reply.status}, expected ${expect.status.join('|')}: ${snippet}`);
  }
  const requestId = reply.headers['x-request-id'];
  if (typeof requestId !== 'string' || !REQUEST_ID.test(requestId)) {
    problems.push(`X-Request-Id header is ${JSON.stringify(requestId)}`);
  }
  if (method === 'HEAD') return problems;
  let body: any;
  try {
    body = JSON.parse(reply.text);
  } catch {
    problems.push(`body is not JSON: ${snippet}`);
    return problems;
  }
  if (reply.status >= 400) {
    problems.push(...verifyEnvelope(body, reply.status, requestId, expect));
    if (reply.status === 429 && !/^\d+$/.test(String(reply.headers['retry-after']))) {
      problems.push(`429 without a Retry-After in seconds (${reply.headers['retry-after']})`);
    }
  } else if (expect.check && problems.length === 0) {
    const problem = expect.check(body, reply);
    if (problem) problems.push(`${problem}: ${snippet}`);
  }
  return problems;
}

/** The error envelope's rules, for an answer of `status` that carried `requestId` in its header. */
export function verifyEnvelope(body: any, status: number, requestId: unknown, expect: Pick<Expect, 'code' | 'field'>): string[] {
  const problems: string[] = [];
  const text = JSON.stringify(body).slice(0, 200);
  if (!body || typeof body !== 'object' || Array.isArray(body) || Object.keys(body).join() !== 'error') {
    return [`not an error envelope: ${text}`];
  }
  const e = body.error;
  if (!e || typeof e !== 'object') return [`error member is not an object: ${text}`];
  const extra = Object.keys(e).filter((k) => !['code', 'message', 'request_id', 'details'].includes(k));
  if (extra.length) problems.push(`error has members outside the contract: ${extra.join(', ')}`);
  const statuses: Record<string, number> = ERROR_STATUS;
  if (typeof e.code !== 'string' || !Object.hasOwn(statuses, e.code)) problems.push(`error.code ${JSON.stringify(e.code)} is not a contract code`);
  else if (statuses[e.code] !== status) problems.push(`error.code ${e.code} travels with ${statuses[e.code]}, got ${status}`);
  if (expect.code && !expect.code.includes(e.code)) problems.push(`error.code ${e.code}, expected ${expect.code.join('|')}`);
  if (typeof e.message !== 'string' || e.message === '') problems.push('error.message is not a non-empty string');
  if (typeof e.request_id !== 'string' || !REQUEST_ID.test(e.request_id)) problems.push(`error.request_id ${JSON.stringify(e.request_id)}`);
  if (e.request_id !== requestId) problems.push(`error.request_id ${e.request_id} != X-Request-Id ${String(requestId)}`);
  if (e.details !== undefined && (e.details === null || typeof e.details !== 'object' || Array.isArray(e.details))) {
    problems.push('error.details is not an object');
  }
  if (e.code === 'INVALID_REQUEST') {
    const field = e.details?.field;
    if (typeof field !== 'string' || field === '') problems.push(`INVALID_REQUEST without details.field: ${text}`);
    else if (expect.field && !expect.field.includes(field)) {
      problems.push(`details.field ${JSON.stringify(field)}, expected ${expect.field.map((f) => JSON.stringify(f)).join('|')}`);
    }
  }
  return problems;
}
