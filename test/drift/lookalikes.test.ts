/**
 * Answers and prompts that look like the sites' notices (lookalike-suite.ts) on every
 * provider and layout, and on each default layout drifted every way (npm run test:drift; npm
 * test runs a sample, test/e2e/lookalike-sample.test.ts).
 */
import { DRIFT_KINDS } from '../../agents/simulator/client/drift-kinds.js';
import { SIM_SITES } from '../../agents/simulator/site-config.js';
import { PROVIDERS } from '../../main/core/providers.js';
import { lookalikeSuite } from '../e2e/lookalike-suite.js';
import { REBUILD } from './drift-matrix.js';

for (const provider of PROVIDERS) {
  for (const layout of SIM_SITES[provider].layouts) lookalikeSuite(provider, { layout });
  for (const drift of [...DRIFT_KINDS.map((kind) => [kind]), REBUILD]) {
    // Qwen's streaming answer, and Perplexity's before the final-text wrapper comes, are known
    // by their classes only: hashed, they are taken apart from notices by fresh pages instead
    // (each job still whole, no agent set aside).
    lookalikeSuite(provider, { drift }, { confirmed: (provider === 'qwen' || provider === 'perplexity') && drift.includes('classes') });
  }
}
