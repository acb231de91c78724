import type { Settings, SettingsStore } from '../settings/settings-store.js';
import { parse, UsageError } from './args.js';
import { DATABASE_OPTION } from './database.js';
import { changeSettings } from './shared-settings.js';

const WEBHOOKS_USE = 'Use: chatbridge settings webhooks [deny|undeny ADDRESS|RANGE…]';

/**
 * `chatbridge settings webhooks`: the operator's webhook deny-list, addresses and CIDR ranges
 * no delivery is ever sent to (an IPv6 address that embeds an IPv4 one is judged by both),
 * whatever the profile and whatever a receiver's name resolves to. `deny` adds entries,
 * `undeny` takes them off.
 */
export async function settingsWebhooks(args: string[]): Promise<void> {
  const { values, positionals } = parse(args, { 'data-dir': { type: 'string' }, ...DATABASE_OPTION }, 64);
  const [action, ...entries] = positionals;
  const shown = await changeSettings(values, changeOf(action, entries));
  process.stdout.write(`Webhooks are never sent to: ${shown.webhookDeny.length > 0 ? shown.webhookDeny.join(', ') : 'no address of the deny-list (none is set)'}.\n`);
}

function changeOf(action: string | undefined, entries: string[]): ((now: Settings, store: SettingsStore) => Promise<void>) | undefined {
  if (action === undefined) return undefined;
  if (action === 'deny' && entries.length > 0) return (now, store) => store.setWebhookDeny([...now.webhookDeny, ...entries]);
  if (action === 'undeny' && entries.length > 0) return (now, store) => store.setWebhookDeny(now.webhookDeny.filter((e) => !entries.includes(e)));
  throw new UsageError(WEBHOOKS_USE);
}
