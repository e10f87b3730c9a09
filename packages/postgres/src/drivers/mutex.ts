import type { ReadPriority } from '@toolrow/datasource';

interface Waiter {
  priority: ReadPriority;
  grant: () => void;
}

/**
 * A lock for PGlite's one connection: statements and transactions take turns, the user's own
 * before a client's (first come, first served within each), so the user never waits behind a
 * queue of client reads. `onContended` tells the holder that an interactive waiter arrived, so a
 * background holder can give way (see pglite-thread.ts).
 */
export class Mutex {
  #held = false;
  #holder: ReadPriority | undefined;
  #queue: Waiter[] = [];
  #onContended: (() => void) | undefined;

  lock(priority: ReadPriority = 'interactive', onContended?: () => void): Promise<() => void> {
    return new Promise((resolve) => {
      const grant = () => {
        this.#held = true;
        this.#holder = priority;
        this.#onContended = onContended;
        let done = false;
        resolve(() => {
          if (done) return;
          done = true;
          this.#release();
        });
      };
      if (!this.#held) {
        grant();
        return;
      }
      const waiter = { priority, grant };
      if (priority === 'interactive') {
        // Ahead of every background waiter, behind the interactive ones already waiting.
        const at = this.#queue.findIndex((each) => each.priority === 'background');
        this.#queue.splice(at === -1 ? this.#queue.length : at, 0, waiter);
        if (this.#holder === 'background') this.#onContended?.();
      } else this.#queue.push(waiter);
    });
  }

  /** No one holds the lock, and no one waits for it. */
  get idle(): boolean {
    return !this.#held && this.#queue.length === 0;
  }

  #release(): void {
    this.#held = false;
    this.#holder = undefined;
    this.#onContended = undefined;
    this.#queue.shift()?.grant();
  }

  async run<T>(fn: () => Promise<T>, priority: ReadPriority = 'interactive'): Promise<T> {
    const unlock = await this.lock(priority);
    try {
      return await fn();
    } finally {
      unlock();
    }
  }
}
