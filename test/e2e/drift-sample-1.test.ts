/** Part 1 of the drift sample (drift-sample.ts). */
import { driftSample } from './drift-sample.js';

driftSample(1);
