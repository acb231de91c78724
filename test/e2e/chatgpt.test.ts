import { providerSuite } from './provider-suite.js';

providerSuite('chatgpt', {}, 'full');
