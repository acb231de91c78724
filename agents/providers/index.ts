import type { Provider } from '../../main/core/providers.js';
import { chatgpt } from './chatgpt.js';
import { claude } from './claude.js';
import { deepseek } from './deepseek.js';
import { gemini } from './gemini.js';
import { perplexity } from './perplexity.js';
import { qwen } from './qwen.js';
import type { ProviderSite } from './site.js';

/** Every provider ChatBridge can drive, keyed by provider id. */
export const PROVIDER_SITES: Record<Provider, ProviderSite> = { chatgpt, claude, gemini, deepseek, qwen, perplexity };

/** The same site with another base address: how the simulator's sites are driven. */
export function atBaseUrl(site: ProviderSite, baseUrl: string): ProviderSite {
  return { ...site, baseUrl };
}
