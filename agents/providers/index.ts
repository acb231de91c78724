import type { Provider } from '../../main/core/providers.js';
import { checkPack, compileSite, mergeOverride, type SiteOverride, type SitePack } from './pack-schema.js';
import chatgpt from './packs/chatgpt.json' with { type: 'json' };
import claude from './packs/claude.json' with { type: 'json' };
import deepseek from './packs/deepseek.json' with { type: 'json' };
import gemini from './packs/gemini.json' with { type: 'json' };
import perplexity from './packs/perplexity.json' with { type: 'json' };
import qwen from './packs/qwen.json' with { type: 'json' };
import type { ProviderSite } from './site.js';

/** The packs shipped with the app, checked when this module loads (a bad one is a bug: it throws). */
export const BUILT_IN_PACKS: Record<Provider, SitePack> = {
  chatgpt: checkPack(chatgpt, 'packs/chatgpt.json'),
  claude: checkPack(claude, 'packs/claude.json'),
  gemini: checkPack(gemini, 'packs/gemini.json'),
  deepseek: checkPack(deepseek, 'packs/deepseek.json'),
  qwen: checkPack(qwen, 'packs/qwen.json'),
  perplexity: checkPack(perplexity, 'packs/perplexity.json'),
};

/** Every provider ChatBridge can drive, keyed by provider id, from the built-in packs. */
export const PROVIDER_SITES: Record<Provider, ProviderSite> = Object.fromEntries(
  Object.entries(BUILT_IN_PACKS).map(([provider, pack]) => [provider, compileSite(pack)]),
) as Record<Provider, ProviderSite>;

/** A provider's site with a user's checked override (read from `file`) merged over its built-in pack. */
export function overriddenSite(provider: Provider, override: SiteOverride, file: string): ProviderSite {
  return compileSite(mergeOverride(BUILT_IN_PACKS[provider], override), { file, value: override });
}

/** The same site with another base address: how the simulator's sites are driven. */
export function atBaseUrl(site: ProviderSite, baseUrl: string): ProviderSite {
  return { ...site, baseUrl };
}
