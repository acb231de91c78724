import { driftMatrix } from './drift-matrix.js';

driftMatrix('claude');
