import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { plainMessage, type LogEntry } from '../api.js';
import { LOG_LIMIT, useDashboard } from '../store.js';
import { EmptyState } from './EmptyState.js';
import { Problem } from './Problem.js';

const FILTERS = {
  all: { label: 'All', keep: () => true },
  problems: { label: 'Warnings and errors', keep: (e: LogEntry) => e.level !== 'info' },
} as const;
type Filter = keyof typeof FILTERS;

const LEVEL_WORDS: Record<LogEntry['level'], string> = { info: 'info', warn: 'warning', error: 'error' };

/** Within this many pixels of the bottom counts as "at the bottom": new lines keep it in view. */
const FOLLOW_PX = 24;

/** "14:05:09" today, "3 Mar 14:05:09" on another day, in the viewer's time zone. */
export function logTime(iso: string, now = Date.now()): string {
  const date = new Date(iso);
  const time = date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  if (new Date(now).toDateString() === date.toDateString()) return time;
  return `${date.toLocaleDateString(undefined, { day: 'numeric', month: 'short' })} ${time}`;
}

/**
 * The service's recent log: loaded when shown (and again after the stream reconnects, as
 * the service may have restarted and its log with it), then kept current by the stream's
 * `log` events through the store. Newest at the bottom; it follows new lines unless the
 * person scrolled up to read.
 */
export function LogView() {
  const api = useDashboard((s) => s.api);
  const live = useDashboard((s) => s.connection === 'live');
  const logs = useDashboard((s) => s.logs);
  const [filter, setFilter] = useState<Filter>('all');
  const [loaded, setLoaded] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [following, setFollowing] = useState(true);
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!api || !live) return;
    let cancelled = false;
    const mark = useDashboard.getState().logsReceived;
    api.logs(LOG_LIMIT).then(
      (entries) => {
        if (cancelled) return;
        useDashboard.getState().setLogs(entries, mark);
        setProblem(null);
        setLoaded(true);
      },
      (error: unknown) => {
        if (!cancelled) setProblem(plainMessage(error));
      },
    );
    return () => {
      cancelled = true;
    };
  }, [api, live]);

  const shown = logs.filter(FILTERS[filter].keep);

  useLayoutEffect(() => {
    const el = box.current;
    if (el && following) el.scrollTop = el.scrollHeight;
  }, [logs, filter, following, loaded]);

  const onScroll = () => {
    const el = box.current;
    if (el) setFollowing(el.scrollHeight - el.scrollTop - el.clientHeight <= FOLLOW_PX);
  };

  return (
    <div className="log">
      <div className="toolbar" role="group" aria-label="Show log entries">
        {(Object.entries(FILTERS) as [Filter, (typeof FILTERS)[Filter]][]).map(([id, f]) => (
          <button key={id} type="button" aria-pressed={filter === id} onClick={() => setFilter(id)}>
            {f.label}
          </button>
        ))}
        {!following && shown.length > 0 && (
          <button type="button" onClick={() => setFollowing(true)}>
            Jump to the newest
          </button>
        )}
        <span className="muted">The last {LOG_LIMIT} entries since ChatBridge started, updated live.</span>
      </div>
      <Problem message={problem} />
      {!loaded && !problem ? (
        <p className="note">Reading the log…</p>
      ) : shown.length === 0 ? (
        filter === 'all' ? (
          <EmptyState title="Nothing logged yet">
            <p>
              ChatBridge writes here when it starts, when an agent needs a login or runs into an error, when a job fails or expires, and when a
              webhook receiver does not take a delivery. Prompts and answers are never logged.
            </p>
          </EmptyState>
        ) : (
          <p className="note">No warnings or errors among the recent entries.</p>
        )
      ) : (
        <div className="log-view" role="log" aria-label="ChatBridge log, newest last" tabIndex={0} ref={box} onScroll={onScroll}>
          <ol className="log-lines">
            {shown.map((e) => (
              <li key={`${e.seq}-${e.at}`} className={`log-line log-${e.level}`}>
                <time className="log-time" dateTime={e.at}>
                  {logTime(e.at)}
                </time>
                <span className="log-level">{LEVEL_WORDS[e.level]}</span>
                <span className="log-source">{e.source}</span>
                <span className="log-message">{e.message}</span>
              </li>
            ))}
          </ol>
        </div>
      )}
    </div>
  );
}
