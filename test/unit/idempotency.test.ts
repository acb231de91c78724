import { describe, expect, it } from 'vitest';
import { canonicalJson, keyVerdict, requestHash } from '../../main/queue/idempotency.js';

describe('idempotency request identity', () => {
  it('ignores key order at every level', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"x":1,"y":2}]},"b":1}');
  });

  it('leaves out wait, keeps everything else and the path', () => {
    const body = { prompt: 'p', priority: 1 };
    expect(requestHash('/v1/completions', { ...body, wait: true })).toBe(requestHash('/v1/completions', { ...body, wait: false }));
    expect(requestHash('/v1/completions', body)).not.toBe(requestHash('/v1/completions', { ...body, priority: 2 }));
    expect(requestHash('/v1/completions', body)).not.toBe(requestHash('/v1/chat/completions', body));
  });
});

describe('what a key\'s entry means to a submission', () => {
  const entry = { request_hash: 'h1', job_id: 'job_1', created_at: 1_000 };
  const claim = (hash: string, onOtherHash: 'conflict' | 'replace', ttlMs = 500) => ({ key: 'k', hash, ttlMs, onOtherHash });

  it('a repeat of the request within the window names its job, whichever kind of key', () => {
    expect(keyVerdict(entry, claim('h1', 'conflict'), 1_499)).toEqual({ kind: 'repeat', jobId: 'job_1' });
    expect(keyVerdict(entry, claim('h1', 'replace'), 1_499)).toEqual({ kind: 'repeat', jobId: 'job_1' });
  });

  it('another request is a conflict under an explicit key, and a new job under an implicit one', () => {
    expect(keyVerdict(entry, claim('h2', 'conflict'), 1_100)).toEqual({ kind: 'conflict' });
    expect(keyVerdict(entry, claim('h2', 'replace'), 1_100)).toEqual({ kind: 'new' });
  });

  it('no entry, or one that left the window, makes a new job', () => {
    expect(keyVerdict(undefined, claim('h1', 'conflict'), 1_100)).toEqual({ kind: 'new' });
    expect(keyVerdict(entry, claim('h1', 'conflict'), 1_500)).toEqual({ kind: 'new' });
    expect(keyVerdict(entry, claim('h2', 'conflict', 0), 1_000)).toEqual({ kind: 'new' });
  });
});
