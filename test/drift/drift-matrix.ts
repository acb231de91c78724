/**
 * The whole matrix of looks for one provider (npm run test:drift; too long for the breadth
 * of npm run test:full, which runs a fixed sample of it, test/e2e/drift-sample.ts): every drift kind alone
 * on the default layout at core depth, the two kinds a rebuild brings together (test ids
 * renamed and classes hashed at once: the packs' rule that one cue per acting role survives
 * both, test/unit/pack-cue-rules.test.ts), and every other layout at full depth.
 */
import { DRIFT_KINDS, type DriftKind } from '../../agents/simulator/client/drift-kinds.js';
import { SIM_SITES } from '../../agents/simulator/site-config.js';
import type { Provider } from '../../main/core/providers.js';
import { providerSuite } from '../e2e/provider-suite.js';

/** Drift kinds the matrix also runs together: a release that renames its test hooks as it rebuilds its styles. */
export const REBUILD: readonly DriftKind[] = ['testids', 'classes'];

export function driftMatrix(provider: Provider): void {
  for (const kind of DRIFT_KINDS) providerSuite(provider, { drift: [kind] }, 'core');
  providerSuite(provider, { drift: REBUILD }, 'core');
  for (const layout of SIM_SITES[provider].layouts.slice(1)) providerSuite(provider, { layout }, 'full');
}
