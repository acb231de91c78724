import { useState, type ReactNode } from 'react';

/**
 * A button for actions that cannot be undone: the first press asks, the second acts.
 * Inline rather than window.confirm, so it stays keyboard-friendly and testable.
 */
export function ConfirmButton(props: { label: string; confirmLabel: string; question: ReactNode; busy?: boolean; onConfirm: () => void }) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className="danger-outline" disabled={props.busy} onClick={() => setAsking(true)}>
        {props.label}
      </button>
    );
  }
  return (
    <span className="confirm" role="group" aria-label={props.label}>
      <span className="confirm-question">{props.question}</span>
      <button
        type="button"
        className="danger"
        autoFocus
        onClick={() => {
          setAsking(false);
          props.onConfirm();
        }}
      >
        {props.confirmLabel}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Keep
      </button>
    </span>
  );
}
