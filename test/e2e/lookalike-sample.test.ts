/**
 * The lookalike notices (lookalike-suite.ts) sampled for test:full; the drift matrix tries
 * every provider and layout (test/drift/lookalikes.test.ts). Claude's real-pages layout has
 * no transcript list around its turns, so its limit cues see the person's words and the
 * sidebar's titles; Perplexity's question is an h1, and its newest answer is no turn to the
 * pack's first cue until it has streamed.
 */
import { lookalikeSuite } from './lookalike-suite.js';

lookalikeSuite('claude', { layout: 'render-count' });
lookalikeSuite('perplexity');
