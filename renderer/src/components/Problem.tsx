/** An error in plain words, announced to screen readers. */
export function Problem({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <p className="problem" role="alert">
      {message}
    </p>
  );
}
