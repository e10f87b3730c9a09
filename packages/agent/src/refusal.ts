import {
  type EngineView,
  FORMER_NAMES,
  inlineToolsOf,
  isLoop,
  isServedBy,
  isToolName,
  notServedMessage,
} from '@toolrow/catalog';
import { nearestNames } from '@toolrow/datasource';
import { SearchIndex } from './search/scorer.ts';

/**
 * A refusal the model must read word for word. The AI SDK turns a failed tool call into text with
 * `String(error)`, which for a plain Error prefixes "Error: "; this class prints its message only.
 */
export class ToolRefusal extends Error {
  override name = 'ToolRefusal';
  override toString(): string {
    return this.message;
  }
}

/** A tool failed (bad input, a missing table, the database said no): the model reads the message as is. */
export class ToolFailure extends Error {
  override name = 'ToolFailure';
  override toString(): string {
    return this.message;
  }
}

function quoted(name: string): string {
  return name.replace(/\\/g, '\\\\').replace(/'/g, "\\'");
}

/**
 * The text the model sees when it calls a tool that exists but is not active yet. It names the
 * recovery call and the inline tools (row order, joined with ", "), so a refusal costs one step
 * and not the whole turn.
 */
export function notActiveMessage(name: string, engine?: EngineView): string {
  return `Tool '${quoted(name)}' not in active set. Call searchTools(query='${quoted(name)}') to discover it, or use one of: ${inlineToolsOf(engine).join(', ')}`;
}

let index: SearchIndex | undefined;

/**
 * The same shape for a name that is in no row, suggesting the nearest active names instead:
 * first the active tools the catalog search ranks for the invented name ("runSql" → runQuery),
 * then the closest spellings.
 */
export function unknownToolMessage(
  name: string,
  active: Iterable<string>,
  count = 3,
  formerNames: Readonly<Record<string, string>> = FORMER_NAMES,
): string {
  // A former name (a renamed row): the way on is the name it has now.
  const renamed = formerNames[name];
  if (renamed)
    return `Tool '${quoted(name)}' was renamed to '${renamed}'. Call ${renamed} instead${[...active].includes(renamed) ? '' : ` (searchTools(query='${renamed}') finds it)`}.`;
  const candidates = [...active];
  index ??= new SearchIndex();
  const byMeaning = index
    .rank(name)
    .map((match) => match.name as string)
    .filter((candidate) => candidates.includes(candidate));
  const bySpelling = nearestNames(name, candidates, count);
  // Always some names to go on with: the active ones in row order after the near ones (but the
  // search tool, which the message names already).
  const fill = candidates.filter((candidate) => !isLoop(candidate));
  const nearest = [...new Set([...byMeaning, ...bySpelling, ...fill])].slice(0, count);
  return `Tool '${quoted(name)}' not in active set. Call searchTools(query='${quoted(name)}') to discover it, or use one of: ${nearest.join(', ')}`;
}

/**
 * The refusal for any name: a tool the connection's engine does not serve, a known but inactive
 * tool, or a name that is in no row.
 */
export function refusalMessage(name: string, active: Iterable<string>, engine?: EngineView): string {
  if (!isToolName(name)) return unknownToolMessage(name, active);
  return isServedBy(engine, name) ? notActiveMessage(name, engine) : notServedMessage(name, engine);
}
