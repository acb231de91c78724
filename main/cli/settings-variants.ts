import type { Settings, SettingsStore } from '../settings/settings-store.js';
import { parse, UsageError } from './args.js';
import { DATABASE_OPTION } from './database.js';
import { changeSettings } from './shared-settings.js';

const VARIANTS_USE = 'Use: chatbridge settings variants [allow|deny PROVIDER/VARIANT…] | settings variants cap PROVIDER/VARIANT N|none';

/**
 * `chatbridge settings variants`: the variants a hosted service's accounts may ask for (none
 * until the operator allows them, decisions.md), and the hourly caps per variant. `allow` and
 * `deny` add variants to that list or take them off it; `cap` sets one variant's cap.
 */
export async function settingsVariants(args: string[]): Promise<void> {
  const { values, positionals } = parse(args, { 'data-dir': { type: 'string' }, ...DATABASE_OPTION }, 64);
  const [action, ...names] = positionals;
  const shown = await changeSettings(values, changeOf(action, names));
  const caps = Object.entries(shown.variantCaps).sort(([a], [b]) => a.localeCompare(b));
  process.stdout.write(
    `Variants accounts may ask for: ${shown.tenantVariants.length > 0 ? shown.tenantVariants.join(', ') : 'none'} (the hosted profile; the operator's own keys may ask for any).\n` +
      `Hourly caps per variant: ${caps.length > 0 ? caps.map(([name, cap]) => `${name} ${cap}`).join(', ') : 'none'}.\n`,
  );
}

function changeOf(action: string | undefined, names: string[]): ((now: Settings, store: SettingsStore) => Promise<void>) | undefined {
  if (action === undefined) return undefined;
  if ((action === 'allow' || action === 'deny') && names.length > 0) {
    return (now, store) =>
      store.setTenantVariants(action === 'allow' ? [...now.tenantVariants, ...names] : now.tenantVariants.filter((v) => !names.includes(v)));
  }
  if (action === 'cap' && names.length === 2) {
    const [name, cap] = names as [string, string];
    if (cap !== 'none' && !/^\d+$/.test(cap)) throw new UsageError(`A cap is a whole number of jobs an hour, or none, not "${cap}".`);
    return (_now, store) => store.setVariantCap(name, cap === 'none' ? null : Number(cap));
  }
  throw new UsageError(VARIANTS_USE);
}
