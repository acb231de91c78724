/**
 * Where the sites show a chat's title, made from its first prompt, outside the conversation:
 * the history in the sidebar (a link per chat, to its address) and the tab's title while the
 * chat is open. A prompt's words thus show beside its turns, as on the real sites (real pages
 * 2026-04: Claude's recents, Gemini's side navigation, Perplexity's library). The markup is
 * the simulator's own, after the page's end so that it moves nothing a skin placed.
 */
import { el } from './dom.js';
import type { Boot } from './skin.js';

export function chatTitles(boot: Boot): { named(conversationId: string, title: string): void } {
  const address = (id: string) => boot.paths.conversation.replace('{id}', id);
  const link = (id: string, title: string) => el('a', { href: address(id) }, title);
  const history = el('nav', { 'aria-label': 'Chat history' }, ...boot.chats.map((chat) => link(chat.id, chat.title)));
  document.body.append(history);
  const open = boot.chats.find((chat) => chat.id === boot.conversationId);
  if (open) document.title = open.title;
  return {
    named(conversationId, title) {
      if (!Array.from(history.children).some((a) => a.getAttribute('href') === address(conversationId))) history.prepend(link(conversationId, title));
      document.title = title;
    },
  };
}
