export const PROVIDERS = ['chatgpt', 'claude', 'gemini', 'deepseek', 'qwen', 'perplexity'] as const;
export type Provider = (typeof PROVIDERS)[number];

export function isProvider(value: unknown): value is Provider {
  return typeof value === 'string' && (PROVIDERS as readonly string[]).includes(value);
}
