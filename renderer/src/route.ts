import { useEffect, useState } from 'react';

export const PAGES = [
  { id: 'overview', title: 'Overview' },
  { id: 'agents', title: 'Agents' },
  { id: 'caps', title: 'Caps and rotation' },
  { id: 'accounts', title: 'Accounts' },
  { id: 'keys', title: 'API keys' },
  { id: 'webhooks', title: 'Webhooks' },
  { id: 'jobs', title: 'Jobs' },
  { id: 'usage', title: 'Usage' },
  { id: 'settings', title: 'Settings' },
] as const;
export type PageId = (typeof PAGES)[number]['id'];

/** Pages that exist in one profile only: accounts are the hosted profile's. */
export const pagesOf = (profile: 'personal' | 'hosted') => PAGES.filter((p) => p.id !== 'accounts' || profile === 'hosted');

export interface Route {
  page: PageId;
  /** The rest of the path, e.g. a job id in `#/jobs/job_…`. */
  param: string | null;
}

export function parseRoute(hash: string): Route {
  const [page, ...rest] = hash.replace(/^#\/?/, '').split('/');
  const known = PAGES.find((p) => p.id === page);
  return { page: known?.id ?? 'overview', param: known && rest.length ? decodeURIComponent(rest.join('/')) : null };
}

export const href = (page: PageId, param?: string) => `#/${page}${param ? `/${encodeURIComponent(param)}` : ''}`;

/** Pages are addressed by the fragment, so the browser's back button and bookmarks work. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}
