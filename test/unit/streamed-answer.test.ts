/** What of an answer its streams carry when attempts are retried (streamed-answer.ts). */
import { describe, expect, it } from 'vitest';
import { restOfAnswer, StreamedAnswer } from '../../main/service/streamed-answer.js';

const rows = (...pieces: [number, string][]) => pieces.map(([attempt, text], i) => ({ job_id: 'job_1', seq: i + 1, attempt, text }));

describe('StreamedAnswer', () => {
  it("streams one attempt's pieces as they come, and the rest of the answer after them", () => {
    const s = new StreamedAnswer();
    expect(rows([1, 'Four'], [1, ' is']).map((r) => s.add(r))).toEqual(['Four', ' is']);
    expect(restOfAnswer(s.text, 'Four is 2+2')).toBe(' 2+2');
    expect(restOfAnswer(s.text, 'Five')).toBeNull();
  });

  it("holds a retried attempt's pieces until they run past what was sent and begin with it; never takes back or repeats", () => {
    const s = new StreamedAnswer();
    const out = rows([1, 'The answer'], [2, 'The'], [2, ' answer is'], [2, ' 4']).map((r) => s.add(r));
    expect(out).toEqual(['The answer', '', ' is', ' 4']);
    expect(s.text).toBe('The answer is 4');
  });

  it("never streams a retried attempt that says something else, and skips a piece it has taken in", () => {
    const s = new StreamedAnswer();
    const [a, b, c] = rows([1, 'Paris is'], [2, 'Lyon is'], [2, ' nice and long']);
    expect([s.add(a!), s.add(b!), s.add(c!), s.add(a!)]).toEqual(['Paris is', '', '', '']);
    expect(s.seq).toBe(3);
  });
});
