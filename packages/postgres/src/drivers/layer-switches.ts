import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Test switches that turn one protective layer of a read off, so a test can prove the layers left
 * on hold by themselves. Only code running inside `withReadLayers` sees them (exported from
 * `@toolrow/datasource/testing`), never a setting or an environment variable a deployment could set.
 */
export interface ReadLayerSwitches {
  /**
   * false: reads run in a read-write transaction that commits (settings still pinned, still one
   * statement over the extended protocol), so what a statement wrote would stay.
   */
  transaction?: boolean;
  /** false: reads run as the login user even where a reader role is set up. */
  readerRole?: boolean;
}

const switches = new AsyncLocalStorage<ReadLayerSwitches>();

export function readLayerSwitches(): ReadLayerSwitches {
  return switches.getStore() ?? {};
}

export function withReadLayers<T>(layers: ReadLayerSwitches, fn: () => T): T {
  return switches.run({ ...readLayerSwitches(), ...layers }, fn);
}
