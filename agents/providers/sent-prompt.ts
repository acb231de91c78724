/**
 * Where a sent prompt's answer can be found again (AgentTask.onSent), told as the prompt goes:
 * the conversation's own address if the page shows one already (a conversation continued),
 * and again once it does (a new chat gets its address after the send; ChatGPT's provisional
 * routes only once answered). collect.ts reopens that address to collect the answer. The
 * first is kept before Send is pressed (prompt-input.ts `send`).
 */
import type { Frame, Request } from 'playwright-core';
import type { AgentTask } from '../../main/core/agent.js';
import type { FlowContext } from './flow-context.js';

/** Tells the prompt going; resolves once that is kept (rejects: not kept, and the prompt must not go). */
export function reportSent({ page, site }: FlowContext, task: Pick<AgentTask, 'onSent'>, turnsBefore: number): Promise<void> {
  const report = task.onSent;
  if (!report) return Promise.resolve();
  const address = () => (site.conversationPath.test(new URL(page.url()).pathname) ? page.url() : null);
  const now = address();
  const kept = report({ conversation: now, turnsBefore });
  if (now) return kept;
  // The site moves its own page to the address (history.replaceState): a new document that
  // loads instead is another page, whose address is not this prompt's (the next job's chat).
  const onMove = (frame: Frame) => {
    const conversation = frame === page.mainFrame() ? address() : null;
    if (!conversation) return;
    stop();
    // Kept after the send: a failure to keep it is the listener's to report.
    report({ conversation, turnsBefore }).catch(() => {});
  };
  const onRequest = (request: Request) => {
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) stop();
  };
  const stop = () => {
    page.off('framenavigated', onMove);
    page.off('request', onRequest);
  };
  page.on('framenavigated', onMove);
  page.on('request', onRequest);
  return kept;
}
