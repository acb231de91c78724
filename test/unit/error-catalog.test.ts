/**
 * The error catalog (main/core/errors.ts) against the contract's own text: api.md's "Codes"
 * table and the extensions decisions.md fixes. Read from ../shared/spec, so that a change of
 * either side shows here, not a copy of the table that would agree with whichever it was
 * copied from.
 */
import { beforeAll, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../main/core/errors.js';
import { codesNamedIn, describeWithSpec, specText, tableUnder } from '../support/contract-spec.js';

/**
 * Codes of ours that decisions.md does not name yet, and where they are documented instead.
 * Each is a 502, which a caller that does not know it reads as JOB_FAILED (api.md, Rules 1).
 * An entry goes once decisions.md names the code (the last test says so).
 */
const NOT_YET_IN_DECISIONS: Record<string, string> = {
  ANSWER_NOT_TEXT: 'an answer that is a file, an image or a canvas with no words (docs/accounts.md, docs/troubleshooting.md)',
};

describeWithSpec('the error catalog against the contract', () => {
  // Read once the tests run: a skipped suite's body still runs, where there is no spec to read.
  let table: ReturnType<typeof tableUnder>;
  let contract: Map<string, number>;
  let decided: ReturnType<typeof codesNamedIn>;
  const ours = Object.entries(ERROR_STATUS) as [string, number][];
  beforeAll(() => {
    table = tableUnder(specText('api.md'), '### Codes');
    contract = new Map(table.map((row) => [row.Code!, Number(row.HTTP)]));
    decided = codesNamedIn(specText('decisions.md'));
  });

  it("reads api.md's table of codes", () => {
    // The table as the contract has it since its first version (a parse that found some other table would not have these).
    expect(table.length).toBeGreaterThanOrEqual(10);
    expect(contract.get('INVALID_REQUEST')).toBe(400);
    for (const [code, status] of contract) {
      expect(code, 'a code of the table').toMatch(/^[A-Z][A-Z_]+$/);
      expect(status, `${code}'s HTTP status`).toBeGreaterThanOrEqual(400);
    }
  });

  it('has every code of the contract, with its HTTP status', () => {
    const missing = [...contract].filter(([code, status]) => ERROR_STATUS[code as keyof typeof ERROR_STATUS] !== status);
    expect(missing.map(([code, status]) => `${code} ${status} (ours: ${ERROR_STATUS[code as keyof typeof ERROR_STATUS] ?? 'none'})`)).toEqual([]);
  });

  it('adds only 502s that decisions.md names, the specific codes that may replace JOB_FAILED', () => {
    const extra = ours.filter(([code]) => !contract.has(code));
    expect(extra.length).toBeGreaterThan(0);
    const problems = extra.flatMap(([code, status]) => [
      ...(status === 502 ? [] : [`${code} travels with ${status}: a code outside api.md's table must be a 502`]),
      ...(decided.has(code) || code in NOT_YET_IN_DECISIONS ? [] : [`${code} is named neither in api.md nor in decisions.md`]),
    ]);
    expect(problems).toEqual([]);
  });

  it('lists as undecided only codes of ours that decisions.md still does not name', () => {
    for (const code of Object.keys(NOT_YET_IN_DECISIONS)) {
      expect(code in ERROR_STATUS, `${code} is no longer ours`).toBe(true);
      expect(decided.has(code), `decisions.md names ${code} now: take it off NOT_YET_IN_DECISIONS`).toBe(false);
    }
  });
});
