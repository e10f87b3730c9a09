import { describe, expect, it } from 'vitest';
import type { EngineDescriptor } from './engine.ts';
import { createEngineRegistry } from './engine-registry.ts';

function engine(id: string, schemes: string[], drivers: string[], opensWithoutUrl = false): EngineDescriptor {
  return {
    id,
    label: id.toUpperCase(),
    drivers: drivers.map((driver) => ({ id: driver, label: driver })),
    schemes,
    urlForms: `${schemes[0]}://…`,
    ...(opensWithoutUrl ? { opensWithoutUrl } : {}),
    features: [],
    parseUrl: (url) => ({ driver: drivers[0]!, url, description: `${id} ${url}` }),
    open: () => Promise.reject(new Error('not opened in this test')),
  };
}

describe('the engine registry', () => {
  const sql = engine('sql', ['sql', 'sqlite'], ['embedded', 'server'], true);
  const kv = engine('kv', ['kv'], ['kv']);

  it.each([
    ['sql://h/db', 'sql'],
    ['SQLITE:./x', 'sql'],
    ['  kv://table ', 'kv'],
  ])('%s is claimed by %s', (url, id) => {
    expect(createEngineRegistry([sql, kv]).forUrl(url).id).toBe(id);
  });

  it.each([
    [
      'mysql://h/db',
      /^url: the scheme 'mysql:' is not one Toolrow connects to\. Use sql:\/\/…; or kv:\/\/…\.$/,
    ],
    ['localhost', /^url: 'localhost' has no scheme/],
  ])('refuses %s, naming every form', (url, message) => {
    expect(() => createEngineRegistry([sql, kv]).forUrl(url)).toThrow(message);
  });

  it('finds engines by id and driver, and the one opened without a URL', () => {
    const registry = createEngineRegistry([kv, sql]);
    expect(registry.byId('kv')).toBe(kv);
    expect(registry.find('nope')).toBeUndefined();
    expect(() => registry.byId('nope')).toThrow(/No engine 'nope' is installed; these are: kv, sql/);
    expect(registry.driver('server')).toEqual({ engine: sql, driver: sql.drivers[1] });
    expect(registry.driver('nope')).toBeUndefined();
    expect(registry.fallback).toBe(sql);
    expect(() => createEngineRegistry([kv]).fallback).toThrow(/No installed engine opens without a URL/);
    expect(registry.parseUrl('kv://t', { cwd: '/', field: 'url' })).toMatchObject({
      engine: 'kv',
      driver: 'kv',
    });
  });

  it.each([
    ['its id', engine('kv', ['other'], ['other'])],
    ['a scheme', engine('other', ['kv'], ['other'])],
    ['a driver', engine('other', ['other'], ['kv'])],
  ])('refuses an engine that takes %s already, and takes one out again', (_what, clash) => {
    const registry = createEngineRegistry([kv]);
    expect(() => registry.register(clash)).toThrow(
      /cannot be registered: 'kv' has its id, a scheme or a driver/,
    );
    const extra = engine('extra', ['extra'], ['extra']);
    const unregister = registry.register(extra);
    expect(registry.forUrl('extra://x')).toBe(extra);
    unregister();
    expect(() => registry.forUrl('extra://x')).toThrow(/not one Toolrow connects to/);
  });
});
