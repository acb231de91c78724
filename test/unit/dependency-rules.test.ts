/**
 * The direction of imports (design.md), enforced: `.dependency-cruiser.cjs` names the rules
 * and this test fails, listing every wrong import or circle, when one is broken.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { cruise, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../main/core/package-root.js';

const rules = createRequire(`${PACKAGE_ROOT}/`)('./.dependency-cruiser.cjs');

async function violations(): Promise<IViolation[]> {
  const tsConfig = { fileName: join(PACKAGE_ROOT, 'tsconfig.json') };
  const options = { ...rules.options, tsConfig, baseDir: PACKAGE_ROOT, validate: true, ruleSet: rules };
  const result = await cruise(['main', 'agents', 'preload', 'renderer'], options);
  return (result.output as ICruiseResult).summary.violations;
}

describe('dependency rules', () => {
  it('holds every import to the layering of design.md, with no circles', async () => {
    const found = await violations();
    expect(found.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([]);
  }, 60_000);
});
