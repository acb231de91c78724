/**
 * The drift matrix (test/drift/, npm run test:drift) sampled for npm test: every drift kind
 * once, each on a provider, at core depth. The pairs are fixed, so a CI run is the same on
 * any day; they are pairs the whole matrix has shown to hold, among them the ones that
 * failed longest (DeepSeek with hashed classes, Perplexity with wrappers).
 */
import type { DriftKind } from '../../agents/simulator/client/drift-kinds.js';
import type { Provider } from '../../main/core/providers.js';
import { providerSuite } from './provider-suite.js';

const SAMPLE: [DriftKind, Provider][] = [
  ['testids', 'gemini'],
  ['classes', 'deepseek'],
  ['labels', 'qwen'],
  ['wrappers', 'perplexity'],
  ['dialog', 'chatgpt'],
  ['no-copy', 'claude'],
  ['unmount', 'gemini'],
];

for (const [kind, provider] of SAMPLE) providerSuite(provider, { drift: [kind] }, 'core');
