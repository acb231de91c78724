import type { ViewFrame, ViewInput } from './screen.js';
import type { SiteCheck } from './site-check.js';
import type { AttachmentRules } from './attachments.js';
import type { Provider, VariantInfo } from './providers.js';

/** A login under way in an agent's page: waiting for the person, or checking whether they got in. */
export type LoginStep = 'login' | 'checking';

/** A live picture of an agent's page that a person can also click and type into. */
export interface AgentScreen {
  /**
   * Frames from now on (the latest one at once), and `onEnd` when the page is gone (its
   * browser restarts: the agent's next screen shows the new page). Returns the function
   * that stops them.
   */
  watch(onFrame: (frame: ViewFrame) => void, onEnd: () => void): () => void;
  input(event: ViewInput): Promise<void>;
}

/**
 * What the dashboard can do with the agents' browsers, beyond their rows in the pool. The
 * process that runs the browsers provides it (headless `serve`, or the desktop app); until
 * it does, the admin API says the agents are not running.
 */
export interface AgentControl {
  /** Starts the browser of an agent whose row was just created. */
  start(agentId: string): Promise<void>;
  /** Closes the browser of an agent whose row was removed, and deletes its login. */
  remove(agentId: string): Promise<void>;
  /**
   * Shows the agent's page at the provider's login page to the person and, when they come
   * back from it, checks whether the agent is logged in. Again while under way: check now.
   */
  logIn(agentId: string): Promise<void>;
  /** The person closed the login. */
  endLogIn(agentId: string): void;
  loginStep(agentId: string): LoginStep | null;
  /** The agent's page to show in the dashboard; null where the app shows it in a window of its own. */
  screen(agentId: string): AgentScreen | null;
  /**
   * Opens a fresh chat in the agent's page and reports which cue finds each role of its
   * pack; with `send`, also runs a short probe prompt and reports the answer's roles.
   * Throws AgentBusy while the agent runs a job, AgentNotRunning without a browser.
   */
  checkSite(agentId: string, options: { send: boolean }): Promise<SiteCheck>;
  /**
   * Looks at an agent's page again now (a changed site, a challenge, a usage limit),
   * instead of at its next scheduled look; resolves to whether the page is ready for a job.
   */
  recheck(agentId: string): Promise<boolean>;
  /** The provider's variants in its pack as it is now (a user's override included). */
  variants(provider: Provider): readonly VariantInfo[];
  /** What the provider's site takes as files, from its pack as it is now (a user's override included); null: its pack says nothing of files. */
  attachmentRules(provider: Provider): AttachmentRules | null;
  /** Login steps changed. */
  onChange(listener: () => void): void;
}

/** The agent has no browser (still starting, restarting, or none on this machine). */
export class AgentNotRunning extends Error {}

/** The window that shows the agent's page to the person; `onClosed` when they close it. */
export interface LoginWindow {
  show(): void;
  close(): void;
  onClosed(listener: () => void): void;
}
