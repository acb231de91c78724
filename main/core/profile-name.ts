/**
 * The two profiles of api.md: personal (F, the desktop app) and hosted (H, many accounts).
 * A data dir and a shared database each keep the one they were first served in; what
 * differs between them is decided in main/contract/profile.ts.
 */
export const PROFILE_NAMES = ['personal', 'hosted'] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];

export function isProfileName(name: unknown): name is ProfileName {
  return (PROFILE_NAMES as readonly unknown[]).includes(name);
}

/**
 * Profile H: keys belong to accounts (the profile's `accounts`). Here, apart from the
 * profiles' schemas, for the commands that need only this: they start without loading them.
 */
export function hasAccounts(name: ProfileName): boolean {
  return name === 'hosted';
}
