// A job's files through the service on the other four sites (test:full; attachment-jobs.test.ts has ChatGPT and Gemini).
import { attachmentJobs } from './attachment-jobs.js';

attachmentJobs('claude');
attachmentJobs('deepseek');
attachmentJobs('qwen');
attachmentJobs('perplexity');
