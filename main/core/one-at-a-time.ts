/**
 * Runs a task one at a time, on request: asked while it runs, it runs once more after, so
 * whatever was asked for meanwhile is seen, and a burst of asks costs two runs at most. The
 * first run waits for the asks around it to gather: those of one synchronous burst
 * (`'burst'`, a microtask), or of one turn of the event loop (`'turn'`, setImmediate).
 * A run that throws goes to `onError`; the next ask runs as usual.
 */
export class OneAtATime {
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly task: () => Promise<void>,
    private readonly onError: (error: Error) => void,
    private readonly gather: 'burst' | 'turn' = 'burst',
  ) {}

  /** Asks for a run; resolves (never rejects) once a run that started after this call has ended. */
  run(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      await (this.gather === 'turn' ? new Promise<void>((resolve) => setImmediate(resolve)) : Promise.resolve());
      do {
        this.again = false;
        await this.task().catch((error: unknown) => this.onError(error instanceof Error ? error : new Error(String(error))));
      } while (this.again);
      this.running = undefined;
    })();
    return this.running;
  }

  /** A run is under way or waiting for its asks to gather. */
  get busy(): boolean {
    return this.running !== undefined;
  }

  /** Resolves once no run is under way or asked for (a test awaits this instead of sleeping). */
  async idle(): Promise<void> {
    await this.running;
  }
}
