import { providerSuite } from '../e2e/provider-suite.js';
import { driftMatrix, REBUILD } from './drift-matrix.js';

driftMatrix('qwen');
// The real page of 2026-05-21 as a release that renamed its test ids and hashed its classes
// would serve it (its capture is read so in test/real-pages): the answer's actions have no
// role and no label, so only their structure finds them.
providerSuite('qwen', { layout: 'chat-panel', drift: REBUILD }, 'core');
