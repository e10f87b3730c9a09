import { searchCatalog } from '@toolrow/agent';
import { CATALOG_ROWS, isLoop, type ToolName, type ToolVisibility } from '@toolrow/catalog';
import { CORPUS, type EvalRequest, toolsOf } from './corpus.ts';
import type { EvalReport } from './report.ts';

/**
 * The one threshold of the visibility audit: a discoverable row must be named (ranked in the top
 * AUDIT_TOP by the agent's own searchTools scorer, for the request as the user typed it) by at
 * least this share of its requests. Below it, users' wording does not find the tool, and the model
 * would have to guess a search the user never typed: `toolrow catalog --audit` exits 1.
 */
export const NAMING_THRESHOLD = 0.5;

/** How far down the ranking still counts as "named". */
export const AUDIT_TOP = 3;

export interface AuditRow {
  tool: ToolName;
  declared: ToolVisibility;
  requests: number;
  /** Requests whose raw wording ranks the tool in the top AUDIT_TOP. */
  named: number;
  namedRate: number;
  /** With an eval run: the share of attempts at its requests where a search returned it. */
  foundRate?: number;
  searchRate?: number;
  recommended: ToolVisibility;
  /** The declared visibility differs from the recommendation. */
  disagrees: boolean;
  /** Discoverable, yet named by fewer requests than NAMING_THRESHOLD: the audit fails. */
  failing: boolean;
  note: string;
}

export interface Audit {
  threshold: number;
  rows: AuditRow[];
  failing: AuditRow[];
}

/** Whether the agent's scorer ranks `tool` in the top AUDIT_TOP for the request as typed. */
export function wordingNames(request: Pick<EvalRequest, 'text'>, tool: ToolName): boolean {
  return searchCatalog(request.text, { limit: AUDIT_TOP }).some((match) => match.name === tool);
}

export function auditVisibility(options: { corpus?: readonly EvalRequest[]; run?: EvalReport } = {}): Audit {
  const corpus = options.corpus ?? CORPUS;
  const rows: AuditRow[] = [];
  for (const row of CATALOG_ROWS) {
    // The loop tool is how the model searches; it is never searched for.
    if (isLoop(row.name)) continue;
    const mine = corpus.filter((request) => toolsOf(request).includes(row.name));
    const named = mine.filter((request) => wordingNames(request, row.name)).length;
    const namedRate = mine.length === 0 ? 0 : named / mine.length;
    const figures = options.run?.tools.find((tool) => tool.tool === row.name);
    const recommended: ToolVisibility = namedRate >= NAMING_THRESHOLD ? 'discoverable' : 'inline';
    const failing = row.visibility === 'discoverable' && namedRate < NAMING_THRESHOLD;
    const found = figures && figures.attempts > 0 ? figures.foundRate : undefined;
    let note: string;
    if (failing) {
      note = `only ${named} of ${mine.length} requests name it: make it inline, or add the words users type to its keywords`;
    } else if (row.visibility === 'inline' && recommended === 'discoverable') {
      note = 'users name it: it could be discoverable and save its definition tokens';
    } else if (row.visibility === 'discoverable' && found !== undefined && found < NAMING_THRESHOLD) {
      note = `the model's searches found it in only ${Math.round(found * 100)}% of attempts`;
    } else {
      note = 'ok';
    }
    rows.push({
      tool: row.name,
      declared: row.visibility,
      requests: mine.length,
      named,
      namedRate,
      ...(found !== undefined && figures ? { foundRate: found, searchRate: figures.searchRate } : {}),
      recommended,
      disagrees: recommended !== row.visibility,
      failing,
      note,
    });
  }
  return { threshold: NAMING_THRESHOLD, rows, failing: rows.filter((row) => row.failing) };
}
