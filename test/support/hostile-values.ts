/**
 * What the hostile-request tests send and what they expect back: the contract's limits, the
 * answers a valid submission or chat request gets from a service with one instant scripted
 * agent per provider, and pools of values of every JSON type.
 */
import type { Expect } from './contract-answers.js';
import type { Rng } from './seeded-rng.js';

export const PROVIDERS = ['chatgpt', 'claude', 'gemini', 'deepseek', 'qwen', 'perplexity'] as const;
export const MAX_PROMPT = 100_000;
export const MAX_BODY = 1_048_576;
/** A webhook target nothing listens on: a job that names it never holds the request. */
export const HOOK = 'https://127.0.0.1:9/hook';
export const JSON_TYPE = { 'content-type': 'application/json' };

const JOB_ID = /^job_[0-9A-Za-z]+$/;
const TIMESTAMP_F = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

/** INVALID_REQUEST naming `field` (PAYLOAD_TOO_LARGE when `status` is 413). */
export const bad = (field: string | string[], status = 400): Expect => ({
  status: [status],
  code: [status === 413 ? 'PAYLOAD_TOO_LARGE' : 'INVALID_REQUEST'],
  field: Array.isArray(field) ? field : [field],
});

export const notFound: Expect = { status: [404], code: ['NOT_FOUND'] };

/** The (F) 202 body: id, status queued and created_at, nothing else. */
export const acceptedCheck = (body: any): string | undefined => {
  if (!JOB_ID.test(body?.id)) return 'the 202 body has no job id';
  if (body.status !== 'queued') return `the 202 body has status ${body.status}`;
  if (!TIMESTAMP_F.test(body.created_at)) return `the 202 body has created_at ${body.created_at}`;
  const keys = Object.keys(body).sort().join();
  if (keys !== 'created_at,id,status') return `the (F) 202 body has members ${keys}`;
  return undefined;
};

/** What a valid submission answers, given the fields it ends up with. */
export function validSubmission(body: Record<string, unknown>): Expect {
  if (body.wait === false) {
    // Without a callback_url a job that cannot start now is refused with the documented 503.
    if (body.callback_url === null || body.callback_url === undefined) {
      return { status: [202, 503], code: ['NO_AGENT_AVAILABLE'], check: acceptedCheck };
    }
    return { status: [202], check: acceptedCheck };
  }
  // wait: true (the default): every provider has an instant scripted agent, so it succeeds.
  return {
    status: [200],
    check: (job) => {
      if (!JOB_ID.test(job?.id)) return 'no job id';
      if (job.status !== 'succeeded') return `status ${job.status}`;
      if (typeof job.response !== 'string' || !job.response.startsWith('echo(agt_')) return 'no scripted answer';
      return undefined;
    },
  };
}

/** A chat completion answered by a scripted agent, under the model it was asked for. */
export const chatSuccess = (model: string): Expect => ({
  status: [200],
  check: (c) => {
    if (!JOB_ID.test(c?.id)) return 'id is not the job id';
    if (c.object !== 'chat.completion') return `object ${c.object}`;
    if (c.model !== model) return `model ${c.model}, sent ${model}`;
    if (c.usage !== null) return 'usage is not null';
    const m = c.choices?.[0]?.message;
    if (m?.role !== 'assistant' || typeof m.content !== 'string' || !m.content.startsWith('echo(agt_')) return 'no assistant answer';
    return undefined;
  },
});

/** One of every JSON type, some nested. */
export const JUNK: unknown[] = [
  null, true, false, 0, -1, 1, 0.5, -7.25, 1e308, -1e308, 2 ** 53 + 2,
  '', ' ', '0', 'null', 'true', 'false', '[]', '{}', 'ünï🎉',
  [], [null], [1, 'a', {}], [[[[[]]]]],
  {}, { a: 1 }, { '': '' }, { a: { b: { c: { d: [] } } } }, { prompt: 'nested' },
];

export const isString = (v: unknown) => typeof v === 'string';
export const isBool = (v: unknown) => typeof v === 'boolean';
export const isNumber = (v: unknown) => typeof v === 'number';
export const isObject = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);

export function deepArray(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

export function deepObject(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

/** Random JSON text of every type, with hostile keys; never has a top-level `prompt`/`model`. */
export function junkJson(rng: Rng, depth: number): string {
  const keys = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', '', 'a', 'ключ', '🎉', 'wait', 'metadata', 'messages', 'x'.repeat(300)];
  const kind = depth <= 0 ? rng.int(0, 5) : rng.int(0, 7);
  switch (kind) {
    case 0: return 'null';
    case 1: return rng.pick(['true', 'false']);
    case 2: return String(rng.pick([0, -0, 1, -1, 1e308, -1e-308, 123456789012345678901234567890, 0.1, 5000, 600_001]));
    case 3: return JSON.stringify(rng.text(rng.int(0, 40)));
    case 4: return rng.pick(['1e400', '-1e400', '0.0', '1E2', '-0.0e-0']);
    case 5: return JSON.stringify(rng.text(rng.int(0, 5)));
    case 6: {
      const n = rng.int(0, 4);
      return `[${Array.from({ length: n }, () => junkJson(rng, depth - 1)).join(',')}]`;
    }
    default: {
      const n = rng.int(0, 4);
      return `{${Array.from({ length: n }, () => `${JSON.stringify(rng.pick(keys))}:${junkJson(rng, depth - 1)}`).join(',')}}`;
    }
  }
}
