import { providerSuite } from './provider-suite.js';

providerSuite('gemini');
