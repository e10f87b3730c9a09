// Bearer verification without a database round trip per MCP request: a verified token is kept in
// memory for a short while, and its last use is remembered here and written in batches. Any
// revocation in this process clears the cache, so it takes effect on the very next request; a
// revocation made by another process (a shared state server) is seen within the TTL.

/** How long a verified token is trusted without asking the store again. */
export const VERIFY_CACHE_TTL_MS = 10_000;
/** How often remembered last-use times are written. */
export const LAST_USE_FLUSH_MS = 5_000;

export interface VerifyCache<T> {
  get(hash: string, now: number): T | undefined;
  set(hash: string, value: T, now: number): void;
  /** Forgets everything: called on every revocation. */
  clear(): void;
}

export function createVerifyCache<T>(ttlMs: number = VERIFY_CACHE_TTL_MS, max = 10_000): VerifyCache<T> {
  const entries = new Map<string, { value: T; until: number }>();
  return {
    get(hash, now) {
      const entry = entries.get(hash);
      if (!entry) return undefined;
      if (entry.until <= now) {
        entries.delete(hash);
        return undefined;
      }
      return entry.value;
    },
    set(hash, value, now) {
      // Bounded: a flood of distinct valid tokens cannot grow it without limit.
      if (entries.size >= max) entries.delete(entries.keys().next().value as string);
      entries.set(hash, { value, until: now + ttlMs });
    },
    clear() {
      entries.clear();
    },
  };
}

/**
 * Last-use stamps coalesced per key: many uses between two flushes cost one UPDATE. `write` gets
 * the newest time of each key touched since the previous flush.
 */
export interface LastUse<K> {
  touch(key: K, at: Date): void;
  /** The newest unwritten time of a key, to show alongside what the store holds. */
  pending(key: K): Date | undefined;
  flush(): Promise<void>;
}

export function createLastUse<K>(write: (stamps: Map<K, Date>) => Promise<void>): LastUse<K> {
  let stamps = new Map<K, Date>();
  let flushing: Promise<void> = Promise.resolve();
  return {
    touch(key, at) {
      const previous = stamps.get(key);
      if (!previous || previous < at) stamps.set(key, at);
    },
    pending: (key) => stamps.get(key),
    flush() {
      flushing = flushing
        .catch(() => {})
        .then(async () => {
          if (stamps.size === 0) return;
          const batch = stamps;
          stamps = new Map();
          try {
            await write(batch);
          } catch (error) {
            // Kept for the next flush, unless a newer use replaced it meanwhile.
            for (const [key, at] of batch) if (!stamps.has(key)) stamps.set(key, at);
            throw error;
          }
        });
      return flushing;
    },
  };
}
