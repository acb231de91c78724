/**
 * Files in the composer, as every simulated site takes them (sim-markup.md): the files a
 * person picks in the site's file input, drops on its drop zone or pastes into the composer
 * are each posted to the site server at once (their real bytes), shown as a chip that is busy
 * (`aria-busy`, a `[role=progressbar]`) until the server has the file, then finished; a file
 * the server refuses loses its chip and the site shows the server's words in its own notice.
 * Send does nothing while an upload runs; a send carries the finished files in chip order.
 * What each site's controls look like is its look (client/attach/*.ts).
 */
import { el } from './dom.js';
import type { AttachLook, ComposerMode, FileChip, SkinUi } from './skin.js';

export interface Attachments {
  /** An upload runs: Send does nothing. */
  readonly busy: boolean;
  /** Finished files wait in the composer. */
  readonly ready: boolean;
  /** After the skin's mode is set: Send shown disabled while uploading. */
  modeSet(mode: ComposerMode): void;
  /** The finished files for a send, by the ids the server gave them, in chip order; the chips go. */
  take(): { draft: string; files: string[] };
}

interface Item {
  chip: FileChip;
  bar: HTMLElement;
  request: XMLHttpRequest;
  /** The server's id once the file is in. */
  id: string | null;
}

type UploadReply = { ok: true; id: string } | { ok: false; refusal: string };

export function attachments(look: AttachLook, ui: SkinUi, changed: () => void): Attachments {
  /** The message being written, as the server files its uploads. */
  const draft = crypto.randomUUID();
  const items: Item[] = [];

  const update = () => {
    controls.changed?.(items.length);
    changed();
  };

  const forget = (item: Item) => {
    const at = items.indexOf(item);
    if (at >= 0) items.splice(at, 1);
    item.chip.element.remove();
  };

  const upload = (file: File) => {
    const chip = controls.chip(file.name, file.size, items.length + 1);
    const bar = el('div', { role: 'progressbar', 'aria-label': `Uploading ${file.name}`, 'aria-valuemin': '0', 'aria-valuemax': '100', 'aria-valuenow': '0', class: 'sim-upload-progress' });
    chip.element.setAttribute('aria-busy', 'true');
    chip.element.append(bar);
    controls.chips.append(chip.element);
    const request = new XMLHttpRequest();
    const item: Item = { chip, bar, request, id: null };
    items.push(item);
    chip.remove.addEventListener('click', (event) => {
      event.preventDefault();
      if (item.id === null) request.abort();
      else void fetch('/__sim/upload-remove', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ draft, id: item.id }) });
      forget(item);
      update();
    });
    const query = new URLSearchParams({ draft, name: file.name, type: file.type });
    request.open('POST', `/__sim/upload?${query}`);
    request.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) bar.setAttribute('aria-valuenow', String(Math.round((100 * event.loaded) / event.total)));
    });
    request.addEventListener('load', () => {
      if (!items.includes(item)) return;
      const reply = JSON.parse(request.responseText) as UploadReply;
      if (!reply.ok) {
        forget(item);
        controls.notice(reply.refusal);
      } else {
        item.id = reply.id;
        chip.element.removeAttribute('aria-busy');
        bar.remove();
        chip.finished?.();
      }
      update();
    });
    // The connection failed under it (not a refusal, which is a reply): the chip goes.
    request.addEventListener('error', () => {
      forget(item);
      update();
    });
    request.send(file);
  };

  const attach = (files: Iterable<File>) => {
    for (const file of files) upload(file);
    update();
  };
  const controls = look.mount(ui, attach);

  // Drop: files dragged onto the site's drop zone.
  controls.dropZone.addEventListener('dragover', (event) => {
    if (event.dataTransfer?.types.includes('Files')) event.preventDefault();
  });
  controls.dropZone.addEventListener('drop', (event) => {
    const files = Array.from(event.dataTransfer?.files ?? []);
    if (files.length === 0) return;
    event.preventDefault();
    attach(files);
  });
  // Paste: files on the clipboard, pasted into the composer; before the editor's own paste
  // handling, which takes text only.
  document.addEventListener(
    'paste',
    (event) => {
      const files = Array.from(event.clipboardData?.files ?? []);
      if (files.length === 0 || !(event.target instanceof Node) || !ui.composer.element.contains(event.target)) return;
      event.preventDefault();
      event.stopImmediatePropagation();
      attach(files);
    },
    true,
  );

  const busy = () => items.some((item) => item.id === null);
  return {
    get busy() {
      return busy();
    },
    get ready() {
      return items.length > 0 && !busy();
    },
    modeSet(next) {
      // In other modes the skin shows Send disabled or not at all by itself.
      controls.blockSend(busy() && next === 'ready');
    },
    take() {
      const files = items.filter((item) => item.id !== null).map((item) => item.id!);
      for (const item of [...items]) forget(item);
      controls.sent?.();
      update();
      return { draft, files };
    },
  };
}

/**
 * A hidden file input that attaches what is chosen in it, then forgets the choice (so the
 * same file can be chosen again, as on the real sites).
 */
export function fileInput(attrs: Record<string, string>, attach: (files: Iterable<File>) => void): HTMLInputElement {
  const input = el('input', { type: 'file', ...attrs }) as HTMLInputElement;
  wireInput(input, attach);
  return input;
}

/** Makes an input the skin already built attach what is chosen in it. */
export function wireInput(input: HTMLInputElement, attach: (files: Iterable<File>) => void): void {
  input.addEventListener('change', () => {
    const files = Array.from(input.files ?? []);
    input.value = '';
    if (files.length) attach(files);
  });
}

/**
 * Send shown disabled while uploading, and given back as it was: `apply` disables it, `undo`
 * takes back only what `apply` did (the skin may disable it for its own reasons too).
 */
export function sendBlocker(apply: () => void, undo: () => void): (blocked: boolean) => void {
  let applied = false;
  return (blocked) => {
    if (blocked) {
      apply();
      applied = true;
    } else if (applied) {
      undo();
      applied = false;
    }
  };
}

/** A notice that shows the latest refusal for a while, as toasts do. */
export function transientNotice(show: (text: string) => HTMLElement, ms = 10_000): (text: string) => void {
  let current: { element: HTMLElement; timer: number } | null = null;
  return (text) => {
    if (current) {
      window.clearTimeout(current.timer);
      current.element.remove();
    }
    const element = show(text);
    current = { element, timer: window.setTimeout(() => element.remove(), ms) };
  };
}

/** A file's extension, upper case (the chips' badges). */
export function extensionOf(name: string): string {
  return /\.([^.]+)$/.exec(name.replace(/\[\[sim:[^\]]*\]\]/g, ''))?.[1]?.toUpperCase() ?? 'FILE';
}

/** A small menu that opens under `button` with one item per entry; a click outside closes it. */
export function popupMenu(button: HTMLElement, build: () => HTMLElement, host: HTMLElement = document.body): void {
  let open: HTMLElement | null = null;
  const close = () => {
    open?.remove();
    open = null;
    button.setAttribute('aria-expanded', 'false');
  };
  button.addEventListener('click', (event) => {
    event.preventDefault();
    if (open) return close();
    open = build();
    open.addEventListener('click', () => window.setTimeout(close));
    host.append(open);
    button.setAttribute('aria-expanded', 'true');
  });
  document.addEventListener('pointerdown', (event) => {
    if (open && event.target instanceof Node && !open.contains(event.target) && !button.contains(event.target)) close();
  });
}
