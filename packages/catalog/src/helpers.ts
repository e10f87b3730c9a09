import { type EngineFeature, TOOL_ROWS, type ToolAccess, type ToolRow } from '@toolrow/declarations';
import { TOOL_NEEDS } from './generated/needs.ts';
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

/**
 * The input the tool takes on the sample shop, as its row declares it (`{}` for a row without
 * one: its inputs are all optional). What every suite that runs each tool calls it with.
 */
export function exampleOf(name: ToolName): Record<string, unknown> {
  return structuredClone((rowOf(name).example ?? {}) as Record<string, unknown>);
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
 * A connection's engine as the catalog sees it: its id (whose users' words search matches) and
 * the features it has (which decide the tools it serves). A DataSource is one.
 */
export interface EngineView {
  readonly engine: string;
  readonly features: readonly string[];
}

/** What the tool needs of an engine that `on` does not have (none: it is served there). */
export function missingNeeds(on: EngineView | undefined, name: ToolName): readonly EngineFeature[] {
  const needs: readonly EngineFeature[] =
    (TOOL_NEEDS as Partial<Record<string, readonly EngineFeature[]>>)[name] ?? [];
  return on === undefined ? [] : needs.filter((feature) => !on.features.includes(feature));
}

const served = new Map<string, readonly ToolName[]>();

/**
 * The tools a connection of `on` serves (row order): every row whose needs its engine has. With
 * no engine (a catalog listing, not a connection), every tool.
 */
export function toolsServedBy(on: EngineView | undefined): readonly ToolName[] {
  if (on === undefined) return TOOL_NAMES;
  const key = [...on.features].sort().join(',');
  let names = served.get(key);
  if (!names) {
    names = TOOL_NAMES.filter((name) => missingNeeds(on, name).length === 0);
    served.set(key, names);
  }
  return names;
}

/** Whether a connection of `on` serves the tool (its engine has everything the row needs). */
export function isServedBy(on: EngineView | undefined, name: string): boolean {
  if (!NAMES.has(name)) return false;
  return missingNeeds(on, name as ToolName).length === 0;
}

/** The inline core of a connection of `on`. */
export function inlineToolsOf(on: EngineView | undefined): readonly ToolName[] {
  return INLINE_TOOLS.filter((name) => isServedBy(on, name));
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
export function alternativesOn(on: EngineView | undefined, name: ToolName, count = 3): ToolName[] {
  const wanted = words(rowOf(name));
  return toolsServedBy(on)
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
export function notServedMessage(name: ToolName, on: EngineView | undefined): string {
  return `Tool '${name}' is not served on this connection: it needs ${missingNeeds(on, name).join(', ')}, which the ${on?.engine} engine does not have; nothing ran. Use one of: ${alternativesOn(on, name).join(', ')}`;
}

/**
 * The background job a call started, by its id: a tool whose row writes files (an export) returns
 * its job's id and finishes later. Undefined for every other call.
 */
export function backgroundJobOf(name: ToolName, output: unknown): string | undefined {
  const id = (output as { id?: unknown } | null)?.id;
  return rowOf(name).writes === 'files' && typeof id === 'string' ? id : undefined;
}
