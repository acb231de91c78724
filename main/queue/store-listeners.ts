import type { StoreEvent } from '../core/jobs.js';

type Listener = (event: StoreEvent) => void;

/**
 * Who hears a job store's committed moves (JobStore.onEvent). A listener that throws must not
 * turn a committed move into a failed call, nor keep the others from hearing it: its error is
 * rethrown on its own, outside the call that published.
 */
export class StoreListeners {
  private readonly listeners = new Set<Listener>();

  /** Returns the function that stops `listener` hearing. */
  add(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish(events: readonly StoreEvent[]): void {
    for (const event of events) {
      for (const listener of [...this.listeners]) {
        try {
          listener(event);
        } catch (error) {
          queueMicrotask(() => {
            throw error;
          });
        }
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}
