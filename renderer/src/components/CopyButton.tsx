import { useEffect, useState } from 'react';

/** Copies `text`; where the clipboard is refused, asks the person to copy by hand. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [result, setResult] = useState<'copied' | 'failed' | null>(null);
  useEffect(() => {
    if (!result) return;
    const timer = setTimeout(() => setResult(null), 2_000);
    return () => clearTimeout(timer);
  }, [result]);
  const copy = () =>
    navigator.clipboard.writeText(text).then(
      () => setResult('copied'),
      () => setResult('failed'),
    );
  return (
    <button type="button" onClick={copy} aria-live="polite">
      {result === 'copied' ? 'Copied' : result === 'failed' ? 'Select and copy it by hand' : label}
    </button>
  );
}
