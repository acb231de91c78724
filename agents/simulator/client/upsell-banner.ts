/**
 * A plan's upsell across the top of every page (SimLook `upsell`), in the words limit
 * notices use ("higher usage limits", "unlimited", "message limit") but saying nothing of the
 * account having hit one, as the sites' own banners and the composer's footnotes do. Marked
 * as an alert with a banner class, where the packs look for limit notices: only the words
 * can tell it from one.
 */
import { el } from './dom.js';

const UPSELL_TEXT = 'Upgrade to Pro for higher usage limits, a bigger message limit and unlimited searches.';

export function upsellBanner(): void {
  document.body.prepend(el('div', { role: 'alert', class: 'upsell-banner', style: 'padding:8px 12px;background:#eef3ff' }, UPSELL_TEXT, ' ', el('a', { href: '/pricing' }, 'Upgrade')));
}
