/** A FIFO lock: PGlite is one connection, so statements and transactions take turns. */
export class Mutex {
  #tail: Promise<void> = Promise.resolve();

  lock(): Promise<() => void> {
    let unlock!: () => void;
    const released = new Promise<void>((resolve) => {
      unlock = resolve;
    });
    const acquired = this.#tail.then(() => {
      let done = false;
      return () => {
        if (done) return;
        done = true;
        unlock();
      };
    });
    this.#tail = this.#tail.then(() => released);
    return acquired;
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    const unlock = await this.lock();
    try {
      return await fn();
    } finally {
      unlock();
    }
  }
}
