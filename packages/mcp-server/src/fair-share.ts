// How much of the user's database MCP clients may use at once. The app's own requests (the user's
// grid, counts, commits) never go through here, so with MCP capped below the connection pool the
// user always has a connection, and on PGlite's single connection they wait behind a few calls at
// most, never behind one client's forty.

/** Calls one MCP client may run at once; more wait their turn, first come first served. */
export const DEFAULT_CALLS_PER_CLIENT = 2;
/** Calls all MCP clients together may run at once (below PostgreSQL's pool of 5). */
export const DEFAULT_CALLS_IN_ALL = 3;

export interface FairShare {
  /** Runs `work` when `client` has a free slot and so does the whole; a cancelled wait runs nothing. */
  run<T>(client: string, signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T>;
  /** Calls running and waiting now (for tests and the app's status). */
  load(): { running: number; waiting: number };
}

interface Waiter {
  client: string;
  start: () => void;
}

export function createFairShare(options: { perClient?: number; inAll?: number } = {}): FairShare {
  const perClient = options.perClient ?? DEFAULT_CALLS_PER_CLIENT;
  const inAll = options.inAll ?? DEFAULT_CALLS_IN_ALL;
  const running = new Map<string, number>();
  let total = 0;
  const queue: Waiter[] = [];

  const fits = (client: string) => total < inAll && (running.get(client) ?? 0) < perClient;
  const take = (client: string) => {
    total += 1;
    running.set(client, (running.get(client) ?? 0) + 1);
  };
  const give = (client: string) => {
    total -= 1;
    const left = (running.get(client) ?? 1) - 1;
    if (left === 0) running.delete(client);
    else running.set(client, left);
    // The oldest waiter that fits goes next: a client at its own cap does not hold up the others.
    for (let index = 0; index < queue.length && total < inAll; ) {
      const waiter = queue[index]!;
      if (fits(waiter.client)) {
        queue.splice(index, 1);
        take(waiter.client);
        waiter.start();
      } else index += 1;
    }
  };

  return {
    async run(client, signal, work) {
      if (signal?.aborted) throw signal.reason ?? new Error('cancelled');
      if (fits(client)) take(client);
      else {
        await new Promise<void>((resolve, reject) => {
          const waiter: Waiter = {
            client,
            start: () => {
              signal?.removeEventListener('abort', onAbort);
              resolve();
            },
          };
          function onAbort() {
            const index = queue.indexOf(waiter);
            if (index >= 0) queue.splice(index, 1);
            reject(signal?.reason ?? new Error('cancelled'));
          }
          signal?.addEventListener('abort', onAbort, { once: true });
          queue.push(waiter);
        });
      }
      try {
        return await work();
      } finally {
        give(client);
      }
    },
    load: () => ({ running: total, waiting: queue.length }),
  };
}
