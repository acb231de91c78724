import { randomUUID } from 'node:crypto';
import type { Provider } from '../../main/core/providers.js';

/** How one simulated site is laid out: the real provider's URL patterns and its skin. */
export interface SimSiteConfig {
  provider: Provider;
  name: string;
  title: string;
  paths: {
    newChat: string;
    /** `{id}` is replaced by the conversation id. */
    conversation: string;
    /** A first, transient address some sites show before the real one (ChatGPT's `/c/WEB:…`). */
    transient?: string;
    login: string;
  };
  newId: () => string;
  /** The skin's entry module under the client folder. */
  skin: string;
}

export const SIM_SITES: Partial<Record<Provider, SimSiteConfig>> = {
  chatgpt: {
    provider: 'chatgpt',
    name: 'ChatGPT',
    title: 'ChatGPT',
    paths: { newChat: '/', conversation: '/c/{id}', transient: '/c/WEB:{id}', login: '/auth/login' },
    newId: randomUUID,
    skin: 'skins/chatgpt.js',
  },
};
