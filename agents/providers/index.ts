import type { Provider } from '../../main/core/providers.js';
import { chatgpt } from './chatgpt.js';
import type { ProviderSite } from './site.js';

/** Every provider ChatBridge can drive, keyed by provider id. */
export const PROVIDER_SITES: Partial<Record<Provider, ProviderSite>> = { chatgpt };

/** The same site with another base address: how the simulator's sites are driven. */
export function atBaseUrl(site: ProviderSite, baseUrl: string): ProviderSite {
  return { ...site, baseUrl };
}
