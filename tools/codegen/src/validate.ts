import { nearestNames } from '@toolrow/datasource/names';
import {
  type Access,
  ENGINE_FEATURES,
  type EngineFeature,
  type LocatedRow,
  type McpExposure,
  type Row,
  RowError,
  RowErrors,
  WORD_LANGUAGES,
  type Writes,
} from './row-model.ts';

/** What a row needs of an engine, in ENGINE_FEATURES order (none: every engine serves it). */
export function needsOf(row: Row): EngineFeature[] {
  return ENGINE_FEATURES.filter((feature) => row.needs?.includes(feature));
}

/** Each access class writes exactly one kind of thing; a mismatch is a misdeclared row. */
export const WRITES_BY_ACCESS: Readonly<Record<Access, Writes>> = {
  read: 'none',
  propose: 'ui',
  open: 'ui',
  stage: 'staging',
  export: 'files',
};

/** The narrowest MCP exposure a row may have given what it does (excluded is always allowed). */
export const MIN_MCP_BY_ACCESS: Readonly<Record<Access | 'none', Exclude<McpExposure, 'excluded'>>> = {
  none: 'readonly',
  read: 'readonly',
  propose: 'staged',
  stage: 'staged',
  open: 'full',
  export: 'full',
};

export const MCP_LEVEL: Readonly<Record<Exclude<McpExposure, 'excluded'>, number>> = {
  readonly: 0,
  staged: 1,
  full: 2,
};

/** "an 'open' row", "a 'read' row". */
const an = (word: string) => `${/^[aeiou]/.test(word) ? 'an' : 'a'} '${word}'`;

const NAME_PATTERN = /^[a-z][A-Za-z0-9]*$/;
const MAX_DESCRIPTION = 400;

type Check = (row: Row, all: ReadonlyMap<string, Row>) => string | undefined;

/**
 * The rules on the rows. Each returns a sentence naming what is wrong and how to fix it, or
 * nothing. The row's name and file:line are added by `validateRows`.
 */
export const ROW_RULES: readonly { id: string; field: keyof Row; check: Check }[] = [
  {
    id: 'name-format',
    field: 'name',
    check: (row) =>
      NAME_PATTERN.test(row.name)
        ? undefined
        : `name '${row.name}' must be camelCase letters and digits (like 'startExport')`,
  },
  {
    id: 'description-length',
    field: 'description',
    check: (row) => {
      const length = row.description.trim().length;
      if (length === 0) return 'description is empty; the model chooses tools by their description';
      if (length > MAX_DESCRIPTION)
        return `description is ${length} characters; keep it under ${MAX_DESCRIPTION} (it is sent on every request)`;
      return undefined;
    },
  },
  {
    id: 'keywords-clean',
    field: 'keywords',
    check: (row) => {
      if (row.keywords.some((k) => k.trim() === '')) return 'keywords has an empty entry';
      const seen = new Set<string>();
      for (const keyword of row.keywords) {
        const key = keyword.toLowerCase();
        if (seen.has(key)) return `keyword '${keyword}' is listed twice`;
        seen.add(key);
      }
      return undefined;
    },
  },
  {
    id: 'words-clean',
    field: 'words',
    check: (row) => {
      for (const [language, words] of [
        ...Object.entries(row.words ?? {}),
        ...Object.entries(row.engineWords ?? {}),
      ]) {
        if (words.some((word) => word.trim() === '')) return `words (${language}) has an empty entry`;
        const seen = new Set<string>();
        for (const word of words) {
          if (seen.has(word.toLowerCase())) return `words (${language}) lists '${word}' twice`;
          seen.add(word.toLowerCase());
        }
      }
      return undefined;
    },
  },
  {
    id: 'verbs-clean',
    field: 'verbs',
    check: (row) => {
      // A verb is also searched as a keyword: listed in both, it would count twice.
      const elsewhere = new Set(
        [...row.keywords, ...Object.values(row.words ?? {}).flat()].map((word) => word.toLowerCase()),
      );
      const seen = new Set<string>();
      for (const verb of row.verbs ?? []) {
        const key = verb.toLowerCase();
        if (key.trim() === '') return 'verbs has an empty entry';
        if (seen.has(key)) return `verbs lists '${verb}' twice`;
        if (elsewhere.has(key))
          return `'${verb}' is in verbs and in keywords or words; keep it in verbs alone`;
        seen.add(key);
      }
      return undefined;
    },
  },
  {
    id: 'formerly-clean',
    field: 'formerly',
    check: (row, all) => {
      for (const former of row.formerly ?? []) {
        if (!NAME_PATTERN.test(former))
          return `formerly lists '${former}', which is no tool name (camelCase)`;
        if (former === row.name) return `formerly lists its own name '${former}'`;
        if (all.has(former))
          return `formerly lists '${former}', the name of another row now; a name is one row's`;
        const elsewhere = [...all.values()].find(
          (other) => other.name !== row.name && other.formerly?.includes(former),
        );
        if (elsewhere)
          return `formerly lists '${former}', which row '${elsewhere.name}' lists too; a former name is one row's`;
      }
      return undefined;
    },
  },
  {
    id: 'discoverable-in-every-language',
    field: 'words',
    check: (row) => {
      if (row.visibility !== 'discoverable') return undefined;
      // searchTools is the only way a model finds a discoverable tool: the user's language must find it.
      const missing = WORD_LANGUAGES.filter((language) => (row.words?.[language] ?? []).length === 0);
      return missing.length > 0
        ? `a discoverable row needs words in every language searchTools serves (searchTools is the only way the model finds it); add words for ${missing.join(', ')}`
        : undefined;
    },
  },
  {
    id: 'discoverable-has-keywords',
    field: 'keywords',
    check: (row) =>
      row.visibility === 'discoverable' && row.keywords.length === 0
        ? 'a discoverable row needs keywords: searchTools is the only way the model finds it'
        : undefined,
  },
  {
    id: 'gated-has-access',
    field: 'access',
    check: (row) => {
      if (row.tier === 'gated' && !row.access)
        return "a gated row needs an access class: 'read', 'propose', 'open', 'stage' or 'export'";
      if (row.tier !== 'gated' && row.access)
        return `only gated rows have an access class; this row is ${row.tier}`;
      return undefined;
    },
  },
  {
    id: 'silent-writes-nothing',
    field: 'writes',
    check: (row) =>
      row.tier === 'silent' && row.writes !== 'none'
        ? `a silent row runs without asking anyone, so it must write nothing (writes: 'none'); make it gated if it writes '${row.writes}'`
        : undefined,
  },
  {
    id: 'silent-never-full',
    field: 'mcp',
    check: (row) =>
      row.tier === 'silent' && row.mcp === 'full'
        ? "a silent row reads and never needs the full MCP scope; use mcp: 'readonly'"
        : undefined,
  },
  {
    id: 'loop-is-internal',
    field: 'tier',
    check: (row) => {
      if (row.tier !== 'loop') return undefined;
      if (row.visibility !== 'inline')
        return 'a loop row must be inline: the model cannot search for the search itself';
      if (row.mcp !== 'excluded')
        return "a loop row is part of the agent loop, not a capability: use mcp: 'excluded'";
      if (row.writes !== 'none') return "a loop row must write nothing (writes: 'none')";
      return undefined;
    },
  },
  {
    id: 'writes-match-access',
    field: 'writes',
    check: (row) => {
      if (!row.access) return undefined;
      const expected = WRITES_BY_ACCESS[row.access];
      return row.writes === expected
        ? undefined
        : `${an(row.access)} row writes '${expected}', not '${row.writes}'`;
    },
  },
  {
    id: 'mcp-covers-access',
    field: 'mcp',
    check: (row) => {
      if (row.mcp === 'excluded') return undefined;
      const minimum = MIN_MCP_BY_ACCESS[row.access ?? 'none'];
      return MCP_LEVEL[row.mcp] >= MCP_LEVEL[minimum]
        ? undefined
        : `${an(row.access ?? 'none')} row cannot be exposed as mcp '${row.mcp}'; a client with that scope must not be able to ${row.access === 'stage' || row.access === 'propose' ? 'stage or propose' : row.access} anything. Use '${minimum}' or wider, or 'excluded'`;
    },
  },
  {
    id: 'twin-only-on-propose',
    field: 'twin',
    check: (row) => {
      if (row.access === 'propose' && !row.twin)
        return "a propose row must name its immediate twin (twin: 'openTable', say)";
      if (row.access !== 'propose' && row.twin) return 'only propose rows name a twin';
      return undefined;
    },
  },
  {
    id: 'stages-only-on-stage',
    field: 'stages',
    check: (row) => {
      if (row.access === 'stage' && !row.stages)
        return "a stage row must say what it queues: stages: 'insert', 'update' or 'delete'";
      if (row.access !== 'stage' && row.stages) return 'only stage rows have a stages field';
      return undefined;
    },
  },
  {
    id: 'needs-clean',
    field: 'needs',
    check: (row) => {
      if (!row.needs) return undefined;
      if (row.needs.length === 0) return 'needs is empty: leave it out when every engine serves the tool';
      const twice = row.needs.find((feature, index) => row.needs!.indexOf(feature) !== index);
      if (twice) return `need '${twice}' is listed twice`;
      if (row.tier === 'loop') return 'a loop row serves every engine: leave needs out';
      return undefined;
    },
  },
  {
    // A tool whose writes an engine carries out cannot be served where the engine cannot.
    id: 'writes-need-their-feature',
    field: 'needs',
    check: (row) => {
      const feature =
        row.writes === 'staging' ? 'stagedWrites' : row.writes === 'files' ? 'exports' : undefined;
      if (!feature || needsOf(row).includes(feature)) return undefined;
      return `a row that writes '${row.writes}' needs '${feature}': add it to needs, so an engine without it does not serve the tool`;
    },
  },
  {
    id: 'twin-exists-and-is-gated',
    field: 'twin',
    check: (row, all) => {
      if (!row.twin) return undefined;
      const twin = all.get(row.twin);
      if (!twin) return `twin '${row.twin}' is not a row name${suggest(row.twin, [...all.keys()])}`;
      if (twin.tier !== 'gated') return `twin '${row.twin}' must be gated; it is ${twin.tier}`;
      if (twin.access === 'propose')
        return `twin '${row.twin}' is itself a propose row; name the immediate tool`;
      if (twin.visibility !== row.visibility)
        return `twin '${row.twin}' is ${twin.visibility} but this propose row is ${row.visibility}; a pair must be visible together so the model can pick the safe one`;
      if (needsOf(twin).join() !== needsOf(row).join())
        return `twin '${row.twin}' needs ${needsOf(twin).join(', ') || 'nothing'} but this propose row ${needsOf(row).join(', ') || 'nothing'}; a pair is served on the same engines`;
      return undefined;
    },
  },
];

/** Rules over the whole list rather than one row. */
function validateList(rows: readonly LocatedRow[]): RowError[] {
  const errors: RowError[] = [];
  const firstByName = new Map<string, LocatedRow>();
  const proposerByTwin = new Map<string, LocatedRow>();
  for (const located of rows) {
    const { row, location } = located;
    const line = (field: keyof Row) => location.propertyLines[field] ?? location.line;
    const earlier = firstByName.get(row.name);
    if (earlier) {
      errors.push(
        new RowError(
          location.file,
          line('name'),
          `row '${row.name}': the name is already used by the row at line ${earlier.location.line}; names must be unique`,
        ),
      );
    } else {
      firstByName.set(row.name, located);
    }
    if (row.twin) {
      const other = proposerByTwin.get(row.twin);
      if (other) {
        errors.push(
          new RowError(
            location.file,
            line('twin'),
            `row '${row.name}': '${row.twin}' is already the twin of '${other.row.name}'; each immediate tool has one propose twin`,
          ),
        );
      } else {
        proposerByTwin.set(row.twin, located);
      }
    }
  }
  return errors;
}

/** Checks every rule on every row and throws one error listing all the problems. */
export function validateRows(rows: readonly LocatedRow[]): void {
  const byName = new Map(rows.map(({ row }) => [row.name, row] as const));
  const errors = validateList(rows);
  for (const { row, location } of rows) {
    for (const rule of ROW_RULES) {
      const problem = rule.check(row, byName);
      if (problem) {
        errors.push(
          new RowError(
            location.file,
            location.propertyLines[rule.field] ?? location.line,
            `row '${row.name}': ${problem} [${rule.id}]`,
          ),
        );
      }
    }
  }
  if (rows.length === 0)
    errors.push(new RowError(rows[0]?.location.file ?? 'declarations', 1, 'there are no rows'));
  if (errors.length > 0) throw new RowErrors(errors.sort((a, b) => a.line - b.line));
}

/** ", did you mean 'x'?" for the closest name by edit distance, or nothing. */
export function suggest(name: string, candidates: readonly string[]): string {
  const best = nearestNames(name, candidates, 1)[0];
  return best ? `; did you mean '${best}'?` : '';
}
