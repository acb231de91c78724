/**
 * The drift matrix (test/drift/, npm run test:drift) sampled for npm run test:full (the
 * breadth it runs after npm test): every drift kind once, each on a provider, at core depth. The pairs are fixed, so a CI run is the same on
 * any day; they are pairs the whole matrix has shown to hold, among them the ones that
 * failed longest (DeepSeek with hashed classes, Perplexity with wrappers), and a release that
 * renamed its test ids and hashed its classes at once on Claude, whose composer was lost so.
 */
import type { DriftKind } from '../../agents/simulator/client/drift-kinds.js';
import type { Provider } from '../../main/core/providers.js';
import { REBUILD } from '../drift/drift-matrix.js';
import { providerSuite } from './provider-suite.js';

const SAMPLE: [readonly DriftKind[], Provider][] = [
  [['testids'], 'gemini'],
  [['classes'], 'deepseek'],
  [['labels'], 'qwen'],
  [['wrappers'], 'perplexity'],
  [['dialog'], 'chatgpt'],
  [['no-copy'], 'claude'],
  [['unmount'], 'gemini'],
  [['no-finish'], 'deepseek'],
  [REBUILD, 'claude'],
];

for (const [drift, provider] of SAMPLE) providerSuite(provider, { drift }, 'core');
