/**
 * `chatbridge/client`: ChatBridge's /v1 API for Node scripts, with the contract's client
 * rules built in, and the check of its signed webhooks. Node built-ins only: this folder
 * ships alone and imports nothing else of the project at run time.
 */
export { ChatBridgeClient, jobError } from './client.js';
export type { CallOptions, ClientOptions, SubmitOptions, WaitOptions } from './client.js';
export type { FollowOptions, JobEvent } from './follow.js';
export type { ClientClock } from './clock.js';
export { ChatBridgeError, NETWORK_ERROR } from './errors.js';
export { verifyWebhook, WebhookVerificationError } from './webhook.js';
export type { HeaderSource, VerifyOptions, WebhookFailure } from './webhook.js';
export { isFinal, modelChoice } from './types.js';
export { attachment, filePart, mediaTypeOf, readAttachment } from './attachments.js';
export type {
  Accepted,
  AttachmentInput,
  AttachmentMeta,
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionRequest,
  HostedStatus,
  Job,
  JobStatus,
  ModelList,
  Provider,
  Status,
  SubmitRequest,
} from './types.js';
