/**
 * A cookie-consent banner fixed over the bottom of every page until answered (SimLook
 * `consent`): not a dialog, no close control, two choices, "Accept all cookies" and "Reject
 * non-essential". It covers the composer, as the banners do on a short window. The answer
 * is kept in a cookie (the banner does not come back) and reported to the site's log.
 */
import { el } from './dom.js';

export function consentBanner(over: HTMLElement, onAnswer: (choice: 'accept' | 'reject') => void): void {
  const top = Math.max(0, over.getBoundingClientRect().top - 12);
  const banner = el(
    'div',
    { class: 'cookie-banner', style: `position:fixed;left:0;right:0;bottom:0;top:${top}px;z-index:2147483400;background:#fafafa;border-top:1px solid #ccc;padding:16px` },
    el('p', {}, 'We use cookies to run this site and, with your consent, to measure and improve it.'),
  );
  for (const [label, choice] of [
    ['Accept all cookies', 'accept'],
    ['Reject non-essential', 'reject'],
  ] as const) {
    const button = el('button', { type: 'button', style: 'margin-right:8px' }, label);
    button.addEventListener('click', () => {
      document.cookie = `sim_consent=${choice}; path=/`;
      banner.remove();
      onAnswer(choice);
    });
    banner.append(button);
  }
  document.body.append(banner);
}
