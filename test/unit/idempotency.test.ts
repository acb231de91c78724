import { describe, expect, it } from 'vitest';
import { canonicalJson, requestHash } from '../../main/queue/idempotency.js';

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
