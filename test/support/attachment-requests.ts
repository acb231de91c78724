/**
 * Requests that carry files (decisions.md, "Attachments"), for the API's tests: the three
 * files the issue names (an image, a text with non-ASCII, a 300 KB binary), a multipart body
 * as curl -F sends one, and the submissions the service was handed.
 */
import { createHash, randomBytes } from 'node:crypto';
import { vi } from 'vitest';
import type { Submission } from '../../main/contract/completions-port.js';
import type { Service } from '../../main/service/service.js';

export interface TestFile {
  filename: string;
  media_type: string;
  data: Buffer;
}

/** A 1×1 PNG, byte for byte. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

export function sampleFiles(): TestFile[] {
  return [
    { filename: 'pixel.png', media_type: 'image/png', data: PNG },
    { filename: 'notes – été.txt', media_type: 'text/plain; charset=utf-8', data: Buffer.from('Grüße, 世界: naïve café ✓\n') },
    { filename: 'blob.bin', media_type: 'application/octet-stream', data: randomBytes(300 * 1024) },
  ];
}

export const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** A native JSON `attachments` entry. */
export const asJson = (f: TestFile) => ({ filename: f.filename, media_type: f.media_type, data: f.data.toString('base64') });

/** A data URL, as chat content parts carry files. */
export const dataUrl = (f: Pick<TestFile, 'media_type' | 'data'>) => `data:${f.media_type};base64,${f.data.toString('base64')}`;

export interface Part {
  name: string;
  filename?: string;
  type?: string;
  data: Buffer | string;
}

/** A multipart/form-data body as curl -F writes it. */
export function multipart(parts: Part[]): { body: Buffer; contentType: string } {
  const boundary = `----chatbridge${randomBytes(8).toString('hex')}`;
  const pieces: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ''}`;
    const type = part.type ? `Content-Type: ${part.type}\r\n` : '';
    pieces.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`), Buffer.from(part.data), Buffer.from('\r\n'));
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(pieces), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Every submission the service is handed from now on, and how many reached the job store (vi.restoreAllMocks() ends the watch). */
export function watchSubmissions(service: Service): { submissions: Submission[]; stored: () => number } {
  const submissions: Submission[] = [];
  const submit = service.completions.submit.bind(service.completions);
  vi.spyOn(service.completions, 'submit').mockImplementation((s) => {
    // As it was handed over: the service lets go of the files once the store has them.
    submissions.push({ ...s });
    return submit(s);
  });
  const store = vi.spyOn(service.store, 'submit');
  return { submissions, stored: () => store.mock.calls.length };
}
