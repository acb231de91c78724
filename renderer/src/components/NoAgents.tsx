import { href } from '../route.js';
import { EmptyState } from './EmptyState.js';

/** Shared by the pages that list agents, so a newcomer gets the same next step everywhere. */
export function NoAgents() {
  return (
    <EmptyState title="No agents yet">
      <p>
        An agent is one of your chat accounts (ChatGPT, Claude, Gemini, DeepSeek, Qwen or Perplexity) logged in inside ChatBridge. Jobs wait in the
        queue until an agent can run them.
      </p>
      <p>
        <a className="button primary" href={href('agents', 'add')}>
          Add an account
        </a>{' '}
        <span className="muted">
          To try ChatBridge without an account, run <code>chatbridge serve --simulate</code> and open the link it prints.
        </span>
      </p>
    </EmptyState>
  );
}
