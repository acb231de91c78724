/** A job's file as a submission brings it (core/attachments.ts NewAttachment): its bytes, described by their size and SHA-256. */
import { createHash } from 'node:crypto';
import type { NewAttachment } from '../../main/core/attachments.js';

export function newAttachment(filename: string, data: Buffer, media_type = 'application/octet-stream'): NewAttachment {
  return { filename, media_type, bytes: data.length, sha256: createHash('sha256').update(data).digest('hex'), data };
}
