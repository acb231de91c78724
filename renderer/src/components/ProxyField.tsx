import { useId, useState } from 'react';
import { useAction } from '../hooks.js';
import { Problem } from './Problem.js';

/**
 * An agent's proxy (its browser's egress). The server only ever shows it back masked, so
 * the field starts empty: typing a new one replaces it, "No proxy" goes back to a direct
 * connection. Either restarts the agent's browser.
 */
export function ProxyField({ value, onSave }: { value: string | null; onSave: (proxy: string | null) => Promise<unknown> }) {
  const id = useId();
  const [text, setText] = useState('');
  const save = useAction(async (proxy: string | null) => {
    await onSave(proxy);
    setText('');
  });
  const trimmed = text.trim();
  // The saved proxy, masked, or the forms one may take; the field is as wide as it, so nothing is cut.
  const placeholder = value ?? 'none: http(s):// or socks5://host:port';
  return (
    <form
      className="inline-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (trimmed) void save.run(trimmed);
      }}
    >
      <label htmlFor={id}>Proxy</label>
      <input
        id={id}
        value={text}
        autoComplete="off"
        spellCheck={false}
        placeholder={placeholder}
        size={placeholder.length}
        onChange={(e) => setText(e.target.value)}
      />
      <button type="submit" disabled={!trimmed || save.busy}>
        {value ? 'Replace' : 'Use'}
      </button>
      {value && (
        <button type="button" disabled={save.busy} onClick={() => void save.run(null)}>
          No proxy
        </button>
      )}
      <Problem message={save.error} />
    </form>
  );
}
