export const PROVIDERS = ['chatgpt', 'claude', 'gemini', 'deepseek', 'qwen', 'perplexity'] as const;
export type Provider = (typeof PROVIDERS)[number];

/** How people write them: in names of new agents, and in the dashboard (which bundles this file). */
export const PROVIDER_NAMES: Record<Provider, string> = {
  chatgpt: 'ChatGPT',
  claude: 'Claude',
  gemini: 'Gemini',
  deepseek: 'DeepSeek',
  qwen: 'Qwen',
  perplexity: 'Perplexity',
};

/** The ids of a provider's variants (models and modes of its picker) in the packs in force. */
export type VariantCatalog = (provider: Provider) => readonly string[];

export function isProvider(value: unknown): value is Provider {
  return typeof value === 'string' && (PROVIDERS as readonly string[]).includes(value);
}
