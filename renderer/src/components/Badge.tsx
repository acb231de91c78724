/** A state word with its colour; the word itself carries the meaning, not the colour. */
export function Badge({ tone, children }: { tone: 'good' | 'busy' | 'warn' | 'bad' | 'quiet'; children: string }) {
  return <span className={`badge badge-${tone}`}>{children}</span>;
}

const JOB_TONES: Record<string, 'good' | 'busy' | 'warn' | 'bad' | 'quiet'> = {
  queued: 'quiet',
  dispatched: 'busy',
  succeeded: 'good',
  failed: 'bad',
  cancelled: 'warn',
  expired: 'warn',
};

export function JobStatus({ status }: { status: string }) {
  return <Badge tone={JOB_TONES[status] ?? 'quiet'}>{status === 'dispatched' ? 'running' : status}</Badge>;
}
