import { timestamp } from './timestamps.js';

/** Why a queued job has not started: what the queue knows, for the caller, the log and the dashboard. */
export interface WaitReason {
  /** Why the job has not started, in words for a person: "no ChatGPT account is paired". */
  text: string;
  /** When the wait ends by itself (a rest, a pause, a cap's next slot), if known; null otherwise. */
  until: number | null;
  /** Only a person can end the wait (pair or log in an account, enable an agent, resume). */
  needsPerson: boolean;
}

/** The reason as one phrase, with until when (UTC): for the log, the dashboard and a 504's message. */
export function waitSentence(reason: WaitReason): string {
  return reason.until === null ? reason.text : `${reason.text}, until ${timestamp(reason.until)}`;
}
