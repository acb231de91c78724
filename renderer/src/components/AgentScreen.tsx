import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { plainMessage, type AdminApi, type ViewFrame, type ViewInput } from '../api.js';
import { Problem } from './Problem.js';

/** Keys the page gets by name; printable characters travel as text. */
const NAMED_KEYS = new Set(['Enter', 'Tab', 'Backspace', 'Delete', 'ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Home', 'End', 'PageUp', 'PageDown']);

/**
 * An agent's page, live, as its browser shows it (headless ChatBridge has no window of its
 * own). When `interactive`, clicks, the wheel and the keyboard go to the page, in order;
 * Escape hands the keyboard back to the dashboard.
 */
export function AgentScreen({ api, agentId, interactive, label }: { api: AdminApi; agentId: string; interactive: boolean; label: string }) {
  const [frame, setFrame] = useState<ViewFrame | null>(null);
  const [down, setDown] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const image = useRef<HTMLImageElement>(null);
  const queue = useRef(Promise.resolve());

  useEffect(() => {
    setFrame(null);
    return api.screen(
      agentId,
      (next) => {
        setDown(false);
        setFrame(next);
      },
      () => setDown(true),
    );
  }, [api, agentId]);

  /** One input at a time, so keys arrive in the order they were typed. */
  const send = (event: ViewInput) => {
    queue.current = queue.current.then(
      () => api.input(agentId, event).then(() => setError(null)),
    ).catch((e: unknown) => setError(plainMessage(e)));
  };

  /** From a point on the picture to the page's own CSS pixels. */
  const pagePoint = (clientX: number, clientY: number) => {
    const box = image.current!.getBoundingClientRect();
    const f = frame!;
    const clamp = (v: number, max: number) => Math.min(Math.max(Math.round(v), 0), Math.floor(max));
    return { x: clamp(((clientX - box.left) * f.width) / box.width, f.width), y: clamp(((clientY - box.top) * f.height) / box.height, f.height) };
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      (e.currentTarget as HTMLElement).blur();
      return;
    }
    const modifiers = [e.ctrlKey && 'Control', e.altKey && 'Alt', e.metaKey && 'Meta'].filter(Boolean) as string[];
    // Ctrl/Cmd+V arrives as a paste event with the clipboard's text.
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'v') return;
    if (e.key.length === 1 && modifiers.length === 0) send({ type: 'text', text: e.key });
    else if (NAMED_KEYS.has(e.key) || e.key.length === 1) send({ type: 'key', key: [...modifiers, ...(e.shiftKey && e.key.length > 1 ? ['Shift'] : []), e.key].join('+') });
    else return;
    e.preventDefault();
  };

  const status = down ? 'Reconnecting to the page…' : frame ? null : 'Waiting for the page…';
  return (
    <div className="screen">
      <div
        className={`screen-frame${interactive ? ' screen-live' : ''}`}
        role={interactive ? 'application' : 'img'}
        aria-label={label}
        aria-roledescription={interactive ? 'remote page' : undefined}
        tabIndex={interactive ? 0 : undefined}
        onKeyDown={interactive ? onKeyDown : undefined}
        onPaste={
          interactive
            ? (e) => {
                const text = e.clipboardData.getData('text/plain');
                if (text) send({ type: 'text', text: text.slice(0, 10_000) });
                e.preventDefault();
              }
            : undefined
        }
      >
        {frame ? (
          <img
            ref={image}
            src={`data:image/jpeg;base64,${frame.jpeg}`}
            alt=""
            draggable={false}
            onMouseDown={interactive ? (e) => e.preventDefault() : undefined}
            onClick={
              interactive
                ? (e) => {
                    (e.currentTarget.parentElement as HTMLElement).focus();
                    send({ type: 'click', ...pagePoint(e.clientX, e.clientY) });
                  }
                : undefined
            }
            onWheel={interactive ? (e) => send({ type: 'scroll', ...pagePoint(e.clientX, e.clientY), dx: e.deltaX, dy: e.deltaY }) : undefined}
          />
        ) : (
          <p className="screen-wait">{status}</p>
        )}
        {frame && status && <p className="screen-wait screen-over">{status}</p>}
      </div>
      {interactive && <p className="hint">Click into the page to type in it; Esc gives the keyboard back to the dashboard. Pasting works too.</p>}
      <Problem message={error} />
    </div>
  );
}
