// A job's files through the service on the two ways into a page: ChatGPT's hidden file input, Gemini's upload menu and chooser.
import { attachmentJobs } from './attachment-jobs.js';

attachmentJobs('chatgpt');
attachmentJobs('gemini');
