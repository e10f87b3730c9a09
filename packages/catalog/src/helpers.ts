import { TOOL_ROWS, type ToolAccess, type ToolEngine, type ToolRow } from '@toolrow/declarations';
import { ENGINE_INLINE_TOOLS, ENGINE_TOOLS } from './generated/engines.ts';
import {
  DISCOVERABLE_TOOLS,
  type DiscoverableToolName,
  GATED_TOOLS,
  type GatedToolName,
  INLINE_TOOLS,
  type InlineToolName,
  LOOP_TOOLS,
  type LoopToolName,
  PROPOSE_TWINS,
  type ProposeToolName,
  SILENT_TOOLS,
  type SilentToolName,
  TOOL_ACCESS,
} from './generated/tiers.ts';
import { TOOL_NAMES, type ToolName } from './generated/tool-names.ts';

/** A row whose name is known to be one of the generated tool names. */
export type CatalogRow = ToolRow & { readonly name: ToolName };

/** The rows, typed by the generated names, in declaration order. */
export const CATALOG_ROWS: readonly CatalogRow[] = TOOL_ROWS;

const ROW_BY_NAME: ReadonlyMap<string, CatalogRow> = new Map(CATALOG_ROWS.map((row) => [row.name, row]));
const NAMES: ReadonlySet<string> = new Set(TOOL_NAMES);
const SILENT: ReadonlySet<string> = new Set(SILENT_TOOLS);
const GATED: ReadonlySet<string> = new Set(GATED_TOOLS);
const LOOP: ReadonlySet<string> = new Set(LOOP_TOOLS);
const INLINE: ReadonlySet<string> = new Set(INLINE_TOOLS);
const DISCOVERABLE: ReadonlySet<string> = new Set(DISCOVERABLE_TOOLS);
const IMMEDIATE_TO_PROPOSE: ReadonlyMap<string, ProposeToolName> = new Map(
  (Object.entries(PROPOSE_TWINS) as [ProposeToolName, GatedToolName][]).map(([propose, immediate]) => [
    immediate,
    propose,
  ]),
);

export function isToolName(value: string): value is ToolName {
  return NAMES.has(value);
}

/** The row of a tool. Throws for a name that is in no row (use isToolName first on untrusted input). */
export function rowOf(name: ToolName): CatalogRow {
  const row = ROW_BY_NAME.get(name);
  if (!row) throw new Error(`'${name}' is not a tool; the tools are: ${TOOL_NAMES.join(', ')}`);
  return row;
}

export const isSilent = (name: string): name is SilentToolName => SILENT.has(name);
export const isGated = (name: string): name is GatedToolName => GATED.has(name);
export const isLoop = (name: string): name is LoopToolName => LOOP.has(name);
export const isInline = (name: string): name is InlineToolName => INLINE.has(name);
export const isDiscoverable = (name: string): name is DiscoverableToolName => DISCOVERABLE.has(name);
export const isPropose = (name: string): name is ProposeToolName => Object.hasOwn(PROPOSE_TWINS, name);

/** The access class of a gated tool; undefined for silent and loop tools. */
export function accessOf(name: ToolName): ToolAccess | undefined {
  return isGated(name) ? TOOL_ACCESS[name] : undefined;
}

/** The immediate tool a propose tool proposes. */
export function twinOf(name: ProposeToolName): GatedToolName {
  return PROPOSE_TWINS[name];
}

/** The propose variant of an immediate tool, if it has one: the safe fallback after a denial. */
export function proposeVariantOf(name: ToolName): ProposeToolName | undefined {
  return IMMEDIATE_TO_PROPOSE.get(name);
}

/**
 * The candidates nearest to `name` by case-insensitive edit distance, nearest first, at most
 * `limit`; only reasonably close ones. For "did you mean" in refusals and CLI errors.
 */
export function nearestNames(name: string, candidates: readonly string[] = TOOL_NAMES, limit = 3): string[] {
  const target = name.toLowerCase();
  return candidates
    .map((candidate) => ({ candidate, distance: editDistance(target, candidate.toLowerCase()) }))
    .filter(({ candidate, distance }) => distance <= Math.max(2, Math.floor(candidate.length / 3)))
    .sort((a, b) => a.distance - b.distance || a.candidate.localeCompare(b.candidate))
    .slice(0, limit)
    .map(({ candidate }) => candidate);
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** How each engine is named to a person (and in refusals). */
export const ENGINE_LABELS: Readonly<Record<ToolEngine, string>> = {
  postgres: 'PostgreSQL',
  dynamodb: 'DynamoDB',
};

/**
 * The tools connections of `engine` serve (row order): the generated list of an engine the rows
 * name; for any other installed engine, the tools every engine serves (the rows that name none);
 * with no engine (a catalog listing, not a connection), every tool.
 */
export function toolsServedBy(engine: string | undefined): readonly ToolName[] {
  if (engine === undefined) return TOOL_NAMES;
  return (
    (ENGINE_TOOLS as Readonly<Record<string, readonly ToolName[]>>)[engine] ??
    CATALOG_ROWS.filter((row) => row.engines === undefined).map((row) => row.name)
  );
}

const served = new Map<string, ReadonlySet<string>>();

/** Whether connections of `engine` serve the tool (its row lists the engine, or lists none). */
export function isServedBy(engine: string | undefined, name: string): boolean {
  if (engine === undefined) return NAMES.has(name);
  let set = served.get(engine);
  if (!set) {
    set = new Set(toolsServedBy(engine));
    served.set(engine, set);
  }
  return set.has(name);
}

/** The inline core of a connection of `engine`. */
export function inlineToolsOf(engine: string | undefined): readonly ToolName[] {
  if (engine === undefined) return INLINE_TOOLS;
  return (
    (ENGINE_INLINE_TOOLS as Readonly<Record<string, readonly ToolName[]>>)[engine] ??
    INLINE_TOOLS.filter((name) => isServedBy(engine, name))
  );
}

function words(row: ToolRow): Set<string> {
  const text = [row.name.replace(/([a-z])([A-Z])/g, '$1 $2'), ...row.keywords, row.description].join(' ');
  return new Set(text.toLowerCase().match(/[a-z]{3,}/g) ?? []);
}

let rarity: ReadonlyMap<string, number> | undefined;

/** How telling a word is: log(rows / rows that use it), so "table" weighs little and "foreign" much. */
function weightOf(word: string): number {
  if (!rarity) {
    const counts = new Map<string, number>();
    for (const row of CATALOG_ROWS)
      for (const each of words(row)) counts.set(each, (counts.get(each) ?? 0) + 1);
    rarity = new Map([...counts].map(([each, count]) => [each, Math.log(CATALOG_ROWS.length / count)]));
  }
  return rarity.get(word) ?? 0;
}

/**
 * The tools `engine` serves that come closest to one it does not: the most telling words shared
 * with its row (name, keywords, description), then row order. What a refusal offers instead.
 */
export function alternativesOn(engine: string | undefined, name: ToolName, count = 3): ToolName[] {
  const wanted = words(rowOf(name));
  return toolsServedBy(engine)
    .filter((candidate) => candidate !== name && !isLoop(candidate))
    .map((candidate, order) => ({
      candidate,
      order,
      score: [...words(rowOf(candidate))].reduce(
        (sum, word) => sum + (wanted.has(word) ? weightOf(word) : 0),
        0,
      ),
    }))
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, count)
    .map(({ candidate }) => candidate);
}

/**
 * The refusal for a tool the active connection's engine does not serve: it ran nothing, and names
 * what to use instead, in the shape of the not-in-active-set refusal.
 */
export function notServedMessage(name: ToolName, engine: string | undefined): string {
  const label = (ENGINE_LABELS as Readonly<Record<string, string>>)[engine ?? ''] ?? engine ?? 'these';
  return `Tool '${name}' is not served on ${label} connections (the active connection is ${label}); nothing ran. Use one of: ${alternativesOn(engine, name).join(', ')}`;
}
