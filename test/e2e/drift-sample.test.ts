/**
 * The drift matrix (test/drift/, npm run test:drift) sampled for npm test: every drift kind
 * once, each on a different provider, at core depth. The pairing moves on by one provider
 * every day (UTC), so a week of runs covers every provider with every kind;
 * CHATBRIDGE_DRIFT_SAMPLE=<n> pins it (a failing pair is named in the suite's title, and
 * `npm run test:drift` runs them all).
 */
import { DRIFT_KINDS } from '../../agents/simulator/client/drift-kinds.js';
import { PROVIDERS } from '../../main/core/providers.js';
import { providerSuite } from './provider-suite.js';

const shift = Number(process.env.CHATBRIDGE_DRIFT_SAMPLE ?? Math.floor(Date.now() / 86_400_000));

DRIFT_KINDS.forEach((kind, i) => providerSuite(PROVIDERS[(i + shift) % PROVIDERS.length]!, { drift: [kind] }, 'core'));
