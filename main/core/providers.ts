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

/** A variant of a provider (a model or mode of its picker) as the pack in force lists it. */
export interface VariantInfo {
  id: string;
  /** A long-thinking variant's attempt limit, above the contract's (decisions.md); null for the others. */
  timeoutMs: number | null;
}

/** A provider's variants in the packs in force. */
export type VariantCatalog = (provider: Provider) => readonly VariantInfo[];

export function isProvider(value: unknown): value is Provider {
  return typeof value === 'string' && (PROVIDERS as readonly string[]).includes(value);
}
