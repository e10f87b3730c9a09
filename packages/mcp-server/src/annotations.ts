// MCP tool annotations, derived from a tool's row. The hints are advice to clients (they decide
// whether to ask the user before a call); the scope is what actually enforces access.

import type { ToolAnnotations } from '@modelcontextprotocol/server';
import { type CatalogRow, type StagedOperation, titleOf } from '@toolrow/catalog';

// Kept for importers of @toolrow/mcp-server; it lives in @toolrow/catalog with describeCall.
export { titleOf };

/** The operation a stage tool queues, as its row declares it; undefined for other tools. */
export function stagedOperationOf(row: CatalogRow): StagedOperation | undefined {
  return row.access === 'stage' ? row.stages : undefined;
}

/**
 * Whether the tool's effect, once it lands, can remove or overwrite existing data (MCP's
 * destructiveHint). UI changes and propose chips are reversible and exports write a new file;
 * staged inserts only add rows; staged updates and deletes overwrite or remove rows when the
 * user commits them.
 */
export function isDestructive(row: CatalogRow): boolean {
  switch (row.writes) {
    case 'none':
    case 'ui':
    case 'files':
      return false;
    case 'staging':
      // A stage row without a declared operation cannot pass the generator; treat it as destructive anyway.
      return stagedOperationOf(row) !== 'insert';
  }
}

/** The annotations a tool is listed with, all from its row. */
export function annotationsFor(row: CatalogRow): ToolAnnotations {
  const readOnly = row.writes === 'none';
  return {
    title: titleOf(row.name),
    readOnlyHint: readOnly,
    destructiveHint: isDestructive(row),
    // Reads repeat without effect; every writing tool adds something per call (a tab, a chip,
    // a file, a staged change), so a repeat is not a no-op.
    idempotentHint: readOnly,
    // Every tool works on the user's own database and app state, never the open internet.
    openWorldHint: false,
  };
}
