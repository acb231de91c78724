/**
 * The listeners of one kind of news: `on` adds one and returns the function that removes it,
 * `emit` tells them all. A listener added or removed while the news is told takes effect from
 * the next news.
 */
export class Listeners<T extends unknown[] = []> {
  private readonly set = new Set<(...args: T) => void>();

  on(listener: (...args: T) => void): () => void {
    this.set.add(listener);
    return () => {
      this.set.delete(listener);
    };
  }

  /** Tells every listener; one that throws stops the telling and the caller gets its error. */
  emit(...args: T): void {
    for (const listener of [...this.set]) listener(...args);
  }

  /**
   * Tells every listener even if one throws: its error is rethrown on its own, outside the
   * caller (for news told from inside a read that must finish, as a shared table's re-read).
   */
  emitApart(...args: T): void {
    for (const listener of [...this.set]) {
      try {
        listener(...args);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  clear(): void {
    this.set.clear();
  }
}
