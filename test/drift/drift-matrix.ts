/**
 * The whole matrix of looks for one provider (npm run test:drift; too long for npm test,
 * which runs a rotating sample of it, test/e2e/drift-sample.test.ts): every drift kind alone
 * on the default layout at core depth, and every other layout at full depth.
 */
import { DRIFT_KINDS } from '../../agents/simulator/client/drift-kinds.js';
import { SIM_SITES } from '../../agents/simulator/site-config.js';
import type { Provider } from '../../main/core/providers.js';
import { providerSuite } from '../e2e/provider-suite.js';

export function driftMatrix(provider: Provider): void {
  for (const kind of DRIFT_KINDS) providerSuite(provider, { drift: [kind] }, 'core');
  for (const layout of SIM_SITES[provider].layouts.slice(1)) providerSuite(provider, { layout }, 'full');
}
