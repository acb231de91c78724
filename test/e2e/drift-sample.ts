/**
 * The drift matrix (test/drift/, npm run test:drift) sampled for npm run test:full (the
 * breadth it runs after npm test): every drift kind once, each on a provider, at core depth.
 * The pairs are fixed, so a CI run is the same on any day; they are pairs the whole matrix
 * has shown to hold, among them the ones that failed longest (DeepSeek with hashed classes,
 * Perplexity with wrappers), and a release that renamed its test ids and hashed its classes
 * at once on Claude, whose composer was lost so.
 *
 * In three files (drift-sample-N.test.ts), so that the three workers share it: one file
 * of nine suites took 70 s, and ran alone at the end of the breadth in a clone without
 * vitest's record of past durations (vitest.breadth.config.ts runs it first).
 */
import type { DriftKind } from '../../agents/simulator/client/drift-kinds.js';
import type { Provider } from '../../main/core/providers.js';
import { REBUILD } from '../drift/drift-matrix.js';
import { providerSuite } from './provider-suite.js';

/** Each pair with the file that runs it: the parts as even as their times allow (no-finish waits out the still answer, 38 s). */
const SAMPLE: [readonly DriftKind[], Provider, Part][] = [
  [['testids'], 'gemini', 3],
  [['classes'], 'deepseek', 3],
  [['labels'], 'qwen', 3],
  [['wrappers'], 'perplexity', 2],
  [['dialog'], 'chatgpt', 2],
  [['no-copy'], 'claude', 3],
  [['unmount'], 'gemini', 2],
  [['no-finish'], 'deepseek', 1],
  [REBUILD, 'claude', 1],
];

type Part = 1 | 2 | 3;

/** The suites of part `part` of three. */
export function driftSample(part: Part): void {
  for (const [drift, provider, of] of SAMPLE) if (of === part) providerSuite(provider, { drift }, 'core');
}
