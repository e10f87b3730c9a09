import type { Access, EngineFeature, Row, Writes } from './row-model.ts';
import { MCP_LEVEL, needsOf } from './validate.ts';

/** The MCP scopes a client can hold, narrowest first; each covers the exposure levels up to its own. */
export const MCP_SCOPES = [
  { scope: 'tables:readonly', level: 'readonly' },
  { scope: 'tables:staged', level: 'staged' },
  { scope: 'tables:full', level: 'full' },
] as const;

/** Everything the emitters print, computed once from the rows. Every list keeps row order. */
export interface DerivedCatalog {
  names: string[];
  silent: string[];
  gated: string[];
  loop: string[];
  inline: string[];
  discoverable: string[];
  accessByName: [string, Access][];
  proposeTwins: [string, string][];
  mcp: {
    excluded: string[];
    /** For each scope, the rows it lists and may call. */
    scopeTable: [scope: string, names: string[]][];
    /** For each exposed row, the narrowest scope that covers it. */
    requiredScope: [name: string, scope: string][];
  };
  writeScopes: [writes: Exclude<Writes, 'none'>, names: string[]][];
  readOnly: string[];
  /** The rows that need something of a connection's engine, and what. */
  needs: [name: string, features: EngineFeature[]][];
}

function scopeTable(rows: readonly Row[]): [string, string[]][] {
  const exposed = rows.filter((row) => row.mcp !== 'excluded');
  return MCP_SCOPES.map(({ scope, level }) => [
    scope,
    exposed
      .filter((row) => MCP_LEVEL[row.mcp as keyof typeof MCP_LEVEL] <= MCP_LEVEL[level])
      .map((row) => row.name),
  ]);
}

export function deriveCatalog(rows: readonly Row[]): DerivedCatalog {
  const names = (predicate: (row: Row) => boolean) => rows.filter(predicate).map((row) => row.name);
  const exposed = rows.filter((row) => row.mcp !== 'excluded');
  return {
    names: names(() => true),
    silent: names((row) => row.tier === 'silent'),
    gated: names((row) => row.tier === 'gated'),
    loop: names((row) => row.tier === 'loop'),
    inline: names((row) => row.visibility === 'inline'),
    discoverable: names((row) => row.visibility === 'discoverable'),
    accessByName: rows.flatMap((row) => (row.access ? [[row.name, row.access] as [string, Access]] : [])),
    proposeTwins: rows.flatMap((row) => (row.twin ? [[row.name, row.twin] as [string, string]] : [])),
    mcp: {
      excluded: names((row) => row.mcp === 'excluded'),
      scopeTable: scopeTable(rows),
      requiredScope: exposed.map((row) => [
        row.name,
        MCP_SCOPES.find(({ level }) => level === row.mcp)!.scope,
      ]),
    },
    writeScopes: (['ui', 'staging', 'files'] as const).map((writes) => [
      writes,
      names((row) => row.writes === writes),
    ]),
    readOnly: names((row) => row.writes === 'none'),
    needs: rows.flatMap((row) =>
      needsOf(row).length > 0 ? [[row.name, needsOf(row)] as [string, EngineFeature[]]] : [],
    ),
  };
}
