import { driftMatrix } from './drift-matrix.js';

driftMatrix('chatgpt');
