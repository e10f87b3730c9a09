import {
  isDiscoverable,
  isPropose,
  isToolName,
  proposeVariantOf,
  type ToolName,
  twinOf,
} from '@toolrow/catalog';
import { type EvalRequest, STAGE_TOOLS, type Step, toolsOf } from './corpus.ts';

/** What became of one tool call the model made. */
export type CallOutcome =
  /** It ran (or, for a propose tool, produced its chip). */
  | 'ran'
  /** It was picked but failed: bad input, a missing table, the database said no. */
  | 'failed'
  /** The tool was not active (or does not exist): nothing ran and the model read the way out. */
  | 'refused'
  /** It waited for an approval the run never gave (the turn ran out of rounds). */
  | 'pending';

export interface TracedCall {
  tool: string;
  outcome: CallOutcome;
  /** The ladder asked the user (the eval answers yes, as a user who wants the task done). */
  asked?: boolean;
  /** failed and refused calls: what the model read (clipped). */
  error?: string;
  /** searchTools only: the query and the tools it returned. */
  query?: string;
  found?: string[];
}

/** The grade of one attempt at a request. */
export interface Grade {
  pass: boolean;
  /** Why it failed, in a sentence. */
  reason?: string;
  /** It called searchTools at least once. */
  searched: boolean;
  /** A step of the request can only be done with discoverable tools. */
  needsSearch: boolean;
  /** Calls the request must not make, made: the immediate twin when the chip was right (or back). */
  wrongTwin: string[];
  /** Stage calls made when only a read was asked. */
  unaskedWrites: string[];
  refusals: number;
  /** Refused tools the model then found and called anyway. */
  recovered: number;
}

const options = (step: Step): readonly ToolName[] => (typeof step === 'string' ? [step] : step);

/** A step needs a search when every tool that would do it is discoverable. */
export function needsSearch(request: EvalRequest): boolean {
  return request.expect.some((step) => options(step).every((name) => isDiscoverable(name)));
}

function twinsOf(name: ToolName): ToolName[] {
  const twins: ToolName[] = [];
  if (isPropose(name)) twins.push(twinOf(name));
  const propose = proposeVariantOf(name);
  if (propose) twins.push(propose);
  return twins;
}

/** Grades a turn's calls against the request's tags; `error` is a failure of the run itself. */
export function grade(request: EvalRequest, calls: readonly TracedCall[], error?: string): Grade {
  const refused = calls.filter((call) => call.outcome === 'refused');
  const picked = calls.filter((call) => call.outcome !== 'refused').map((call) => call.tool);
  let next = 0;
  for (const tool of picked) {
    const step = request.expect[next];
    if (step && (options(step) as readonly string[]).includes(tool)) next++;
  }
  const mustNot = new Set<string>(request.mustNot ?? []);
  const forbidden = [...new Set(picked.filter((tool) => mustNot.has(tool)))];
  const expected = toolsOf(request);
  const twins = new Set<string>(expected.flatMap(twinsOf));
  const wrongTwin = forbidden.filter((tool) => twins.has(tool));
  const unaskedWrites = forbidden.filter((tool) => (STAGE_TOOLS as readonly string[]).includes(tool));
  const recovered = [...new Set(refused.map((call) => call.tool))].filter((tool) => {
    const at = calls.findIndex((call) => call.outcome === 'refused' && call.tool === tool);
    return calls.slice(at + 1).some((call) => call.tool === tool && call.outcome !== 'refused');
  }).length;
  let reason: string | undefined;
  if (error) reason = `the run failed: ${error}`;
  else if (next < request.expect.length) {
    const missing = options(request.expect[next]!).join(' or ');
    const refusedNames = [...new Set(refused.map((call) => call.tool))].join(', ');
    reason =
      picked.length === 0
        ? `expected ${missing}; ${refused.length > 0 ? `its only calls were refused (${refusedNames} not active)` : 'called no tool'}`
        : `expected ${missing}${next > 0 ? ` (after step ${next})` : ''}; called ${picked.join(', ')}`;
  } else if (forbidden.length > 0)
    reason = `called ${forbidden.join(', ')}, which this request must not call`;
  else if (request.mustRun) {
    // A failed call the model then ran again successfully answered after all.
    const failed = calls.find(
      (call) =>
        call.outcome === 'failed' &&
        (expected as readonly string[]).includes(call.tool) &&
        !calls.some((other) => other.tool === call.tool && other.outcome === 'ran'),
    );
    if (failed)
      reason = `${failed.tool} failed, and the answer was its result: ${failed.error ?? 'no message'}`;
  }
  return {
    pass: reason === undefined,
    ...(reason !== undefined ? { reason } : {}),
    searched: calls.some((call) => call.tool === 'searchTools'),
    needsSearch: needsSearch(request),
    wrongTwin,
    unaskedWrites,
    refusals: refused.length,
    recovered,
  };
}

/** Every tool a request names that is not a row (the corpus test uses it). */
export function unknownTools(request: EvalRequest): string[] {
  const named = [...toolsOf(request), ...(request.mustNot ?? [])] as string[];
  return named.filter((name) => !isToolName(name));
}
