// The engines an app has installed, looked up by id, driver or URL. The apps hold one
// (@toolrow/engines); a test registers an engine of its own in it. Also `@toolrow/datasource/engine`:
// listing the engines loads only this, their descriptors and the errors.
import type { EngineFeature } from '@toolrow/declarations';
import type { DataSource } from './data-source.ts';
import type { EngineDescriptor, EngineDriver, OpenEngineOptions, ParsedConnectionUrl } from './engine.ts';

export type * from './engine.ts';

import { DataSourceError } from './errors.ts';
import { FEATURE_MEMBERS, type FeatureMember } from './features.ts';

export interface EngineRegistry {
  /** The installed engines, in the order they were registered. */
  readonly engines: readonly EngineDescriptor[];
  /** Adds an engine (its id, drivers and schemes must be free); returns what takes it out again. */
  register(engine: EngineDescriptor): () => void;
  /** The engine with this id; throws naming the installed ones. */
  byId(id: string): EngineDescriptor;
  /** The engine with this id, if installed. */
  find(id: string): EngineDescriptor | undefined;
  /** The engine and driver a driver id names (a stored connection's engine), if installed. */
  driver(id: string): { engine: EngineDescriptor; driver: EngineDriver } | undefined;
  /** The engine whose scheme the URL starts with; throws naming every form that is. */
  forUrl(url: string, field?: string): EngineDescriptor;
  /** The engine opened when no URL is given (the embedded sample). */
  readonly fallback: EngineDescriptor;
  /** A URL as typed, read by the engine that claims it. */
  parseUrl(url: string, options: { cwd: string; field: string }): ParsedConnectionUrl & { engine: string };
}

/**
 * What is wrong with a connection an engine opened, against what its descriptor says (none: it
 * keeps the contract). A feature listed without its member would serve tools that fail when
 * called; a member present without its feature would be offered nowhere.
 */
export function contractProblems(engine: EngineDescriptor, source: DataSource): string[] {
  const problems: string[] = [];
  if (source.engine !== engine.id) problems.push(`its engine is '${source.engine}', not '${engine.id}'`);
  if ([...source.features].sort().join() !== [...engine.features].sort().join())
    problems.push(
      `its features (${source.features.join(', ') || 'none'}) are not its descriptor's (${engine.features.join(', ') || 'none'})`,
    );
  for (const [member, feature] of Object.entries(FEATURE_MEMBERS) as [FeatureMember, EngineFeature][]) {
    const listed = engine.features.includes(feature);
    const present = source[member] !== undefined;
    if (listed && !present) problems.push(`it lists '${feature}' but has no ${member}`);
    if (!listed && present) problems.push(`it has ${member} but does not list '${feature}'`);
  }
  if (!engine.drivers.some((driver) => driver.id === source.driver))
    problems.push(`its driver '${source.driver}' is not one of the engine's`);
  return problems;
}

/** Opens a connection on `engine` and holds it to the contract; a broken one is closed and refused. */
export async function openChecked(engine: EngineDescriptor, options: OpenEngineOptions): Promise<DataSource> {
  const source = await engine.open(options);
  const problems = contractProblems(engine, source);
  if (problems.length === 0) return source;
  await source.close().catch(() => {});
  throw new DataSourceError(
    'misuse',
    `The engine '${engine.id}' opened a connection that breaks the engine contract: ${problems.join('; ')}. Fix the engine package (see docs/adding-an-engine.md).`,
  );
}

function schemeOf(url: string): string | undefined {
  return /^([a-z][a-z0-9+.-]*):/i.exec(url.trim())?.[1]?.toLowerCase();
}

export function createEngineRegistry(initial: readonly EngineDescriptor[]): EngineRegistry {
  const engines: EngineDescriptor[] = [];
  const register = (engine: EngineDescriptor): (() => void) => {
    const clash = engines.find(
      (each) =>
        each.id === engine.id ||
        each.schemes.some((scheme) => engine.schemes.includes(scheme)) ||
        each.drivers.some((driver) => engine.drivers.some((other) => other.id === driver.id)),
    );
    if (clash) {
      throw new DataSourceError(
        'misuse',
        `The engine '${engine.id}' cannot be registered: '${clash.id}' has its id, a scheme or a driver already.`,
      );
    }
    engines.push(engine);
    return () => {
      const at = engines.indexOf(engine);
      if (at >= 0) engines.splice(at, 1);
    };
  };
  for (const engine of initial) register(engine);
  const forms = () => engines.map((engine) => engine.urlForms).join('; or ');
  const registry: EngineRegistry = {
    engines,
    register,
    byId(id) {
      const found = engines.find((engine) => engine.id === id);
      if (found) return found;
      throw new DataSourceError(
        'config',
        `No engine '${id}' is installed; these are: ${engines.map((engine) => engine.id).join(', ')}.`,
      );
    },
    find: (id) => engines.find((engine) => engine.id === id),
    driver(id) {
      for (const engine of engines) {
        const driver = engine.drivers.find((each) => each.id === id);
        if (driver) return { engine, driver };
      }
      return undefined;
    },
    forUrl(url, field = 'url') {
      const scheme = schemeOf(url);
      const found = scheme ? engines.find((engine) => engine.schemes.includes(scheme)) : undefined;
      if (found) return found;
      throw new DataSourceError(
        'config',
        `${field}: ${scheme ? `the scheme '${scheme}:' is not one Toolrow connects to` : `'${url.trim()}' has no scheme`}. Use ${forms()}.`,
      );
    },
    get fallback() {
      const found = engines.find((engine) => engine.opensWithoutUrl);
      if (found) return found;
      throw new DataSourceError(
        'config',
        `No installed engine opens without a URL; set DATABASE_URL (${forms()}) or name a connection.`,
      );
    },
    parseUrl(url, options) {
      const engine = registry.forUrl(url, options.field);
      return { ...engine.parseUrl(url.trim(), options), engine: engine.id };
    },
  };
  return registry;
}
