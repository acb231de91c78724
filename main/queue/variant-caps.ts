/**
 * How the hourly caps per variant (decisions.md, "Models and modes": set with `settings
 * variants cap`) name a variant and say it is used up.
 */

/** How caps name a variant: `provider/variant` (a job asking for none counts against no variant's cap). */
export function variantName(provider: string, variant: string | null | undefined): string | null {
  return variant ? `${provider}/${variant}` : null;
}

/** A variant's cap used up, in words: "the hourly cap of chatgpt/pro (2 jobs an hour) is used up". */
export function variantCapUsedUp({ variant, cap }: { variant: string; cap: number }): string {
  return `the hourly cap of ${variant} (${cap} job${cap === 1 ? '' : 's'} an hour) is used up`;
}
