// Silent tools over app state: attachments, saved specs, staging (read only), exports, audit log.
import { DataSourceError, type ExportJob } from '@toolrow/datasource';
import { AUDIT_DECISIONS, type StagedChange } from '@toolrow/state';
import { z } from 'zod';
import { boundRows, capList, clipText, modelRow, modelValue } from '../bounds.ts';
import { limitsOf, ownRecords } from '../context.ts';
import { defineTool } from '../define.ts';
import { ToolError } from '../errors.ts';
import { limitField, positiveInteger, tableName, textField, within } from '../schemas.ts';

/** Parses CSV text (RFC 4180: quotes, doubled quotes, newlines in quotes), stopping after maxRecords. */
export function parseCsv(text: string, maxRecords: number): { records: string[][]; complete: boolean } {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let index = 0;
  const delimiter = detectDelimiter(text);
  while (index < text.length) {
    const char = text[index]!;
    if (quoted) {
      if (char === '"') {
        if (text[index + 1] === '"') {
          field += '"';
          index += 2;
          continue;
        }
        quoted = false;
      } else field += char;
      index++;
      continue;
    }
    if (char === '"' && field === '') quoted = true;
    else if (char === delimiter) {
      record.push(field);
      field = '';
    } else if (char === '\n' || char === '\r') {
      record.push(field);
      field = '';
      records.push(record);
      record = [];
      if (char === '\r' && text[index + 1] === '\n') index++;
      if (records.length >= maxRecords) return { records, complete: index + 1 >= text.length };
    } else field += char;
    index++;
  }
  if (field !== '' || record.length > 0) {
    record.push(field);
    records.push(record);
  }
  return { records, complete: true };
}

function detectDelimiter(text: string): string {
  const firstLine = text.slice(0, text.indexOf('\n') === -1 ? text.length : text.indexOf('\n'));
  const counts = [',', ';', '\t'].map((candidate) => ({
    candidate,
    count: firstLine.split(candidate).length - 1,
  }));
  counts.sort((left, right) => right.count - left.count);
  return counts[0]!.count > 0 ? counts[0]!.candidate : ',';
}

function kindOf(name: string, mediaType: string): 'csv' | 'json' | 'text' | 'binary' {
  const lowerName = name.toLowerCase();
  const type = mediaType.toLowerCase();
  if (
    type.includes('csv') ||
    lowerName.endsWith('.csv') ||
    lowerName.endsWith('.tsv') ||
    type.includes('tab-separated')
  )
    return 'csv';
  if (
    type.includes('json') ||
    lowerName.endsWith('.json') ||
    lowerName.endsWith('.ndjson') ||
    lowerName.endsWith('.jsonl')
  )
    return 'json';
  if (type.startsWith('text/') || type === '' || type.includes('xml') || type.includes('yaml')) return 'text';
  return 'binary';
}

export const readAttachment = defineTool({
  inputSchema: z.strictObject({
    name: textField(300).describe('The attached file\'s name (e.g. "customers.csv") or id.'),
    limit: limitField(50, 500),
  }),
  async execute(input, ctx) {
    const attachment = await ctx.state.attachments.get(input.name, ctx.profile);
    const limits = limitsOf(ctx);
    const limit = input.limit ?? limits.defaultRows;
    const header = {
      name: attachment.name,
      mediaType: attachment.mediaType,
      sizeBytes: attachment.sizeBytes,
    };
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(attachment.content).replace(/^\uFEFF/, '');
    } catch {
      text = '';
    }
    const kind =
      text === '' && attachment.content.length > 0 ? 'binary' : kindOf(attachment.name, attachment.mediaType);
    if (kind === 'binary') {
      throw new ToolError(
        'failed',
        'readAttachment',
        `${attachment.name} (${attachment.mediaType}, ${attachment.sizeBytes} bytes) is not text, so it cannot be read here. Ask the user for a CSV, JSON or text file.`,
      );
    }
    if (kind === 'csv') {
      const { records, complete } = parseCsv(text, limit + 1);
      const [columns = [], ...data] = records;
      const rows = data
        .slice(0, limit)
        .map((record) => Object.fromEntries(columns.map((column, index) => [column, record[index] ?? null])));
      const bounded = boundRows(rows, limits, data.length > limit || !complete);
      return {
        ...header,
        format: 'csv' as const,
        columns,
        rows: bounded.rows,
        rowCount: bounded.rows.length,
        truncated: bounded.truncated,
      };
    }
    if (kind === 'json') {
      const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
      try {
        const parsed: unknown = JSON.parse(text);
        if (Array.isArray(parsed)) {
          const items = parsed
            .slice(0, limit)
            .map((item) =>
              item !== null && typeof item === 'object' && !Array.isArray(item)
                ? modelRow(item as Record<string, unknown>, limits.maxValueChars)
                : modelValue(item, limits.maxValueChars),
            );
          return {
            ...header,
            format: 'json' as const,
            items,
            itemCount: parsed.length,
            truncated: parsed.length > limit,
          };
        }
        return {
          ...header,
          format: 'json' as const,
          value: modelValue(parsed, limits.maxOutputChars),
          truncated: JSON.stringify(parsed).length > limits.maxOutputChars,
        };
      } catch {
        // NDJSON: one value per line.
        try {
          const items = lines
            .slice(0, limit)
            .map((line) => modelValue(JSON.parse(line), limits.maxValueChars));
          return {
            ...header,
            format: 'ndjson' as const,
            items,
            itemCount: lines.length,
            truncated: lines.length > limit,
          };
        } catch {
          // Not valid JSON after all: fall through to plain lines.
        }
      }
    }
    const lines = text.split(/\r?\n/);
    const shown = lines.slice(0, limit).map((line) => clipText(line, limits.maxValueChars * 4));
    return {
      ...header,
      format: 'text' as const,
      lines: shown,
      lineCount: lines.length,
      truncated: lines.length > limit,
    };
  },
});

export const listSavedSpecs = defineTool({
  inputSchema: z.strictObject({}),
  async execute(_input, ctx) {
    const specs = await ctx.state.specs.list();
    const { items, truncated } = capList(specs, limitsOf(ctx).maxRows);
    return {
      specs: items.map((spec) => ({
        name: spec.name,
        kind: spec.kind,
        ...(spec.description ? { description: spec.description } : {}),
        ...(typeof spec.spec.table === 'string' ? { table: spec.spec.table } : {}),
        updatedAt: spec.updatedAt.toISOString(),
      })),
      truncated,
      ...(specs.length === 0 ? { note: 'No saved specs yet.' } : {}),
    };
  },
});

export const getSavedSpec = defineTool({
  inputSchema: z.strictObject({
    name: textField(200).describe("The saved spec's name, as listSavedSpecs shows it."),
  }),
  async execute(input, ctx) {
    const spec = await ctx.state.specs.get(input.name);
    return {
      name: spec.name,
      kind: spec.kind,
      description: spec.description,
      spec: modelValue(spec.spec, limitsOf(ctx).maxOutputChars),
      createdAt: spec.createdAt.toISOString(),
      updatedAt: spec.updatedAt.toISOString(),
    };
  },
});

function changeSummary(change: StagedChange, maxChars: number) {
  return {
    id: change.id,
    kind: change.kind,
    table: change.table,
    key: change.key === null ? null : modelValue(change.key, maxChars),
    ...(change.values ? { values: modelRow(change.values, maxChars) } : {}),
    stagedBy: change.stagedBy,
    stagedAt: change.createdAt.toISOString(),
  };
}

const STAGING_NOTE =
  'Only the user can commit or discard staged changes (staging panel or `toolrow staging commit|discard`).';

export const listStagedChanges = defineTool({
  inputSchema: z.strictObject({
    table: tableName.optional().describe('Only changes to this table (default: all).'),
    limit: limitField(100, 500),
  }),
  async execute(input, ctx) {
    const table =
      input.table === undefined
        ? undefined
        : (await ctx.source.schema.resolveTable(input.table)).qualifiedName;
    const own = ownRecords(ctx);
    const changes = await ctx.state.staging.list({
      ...(table === undefined ? {} : { table }),
      ...(own.actor ? { stagedBy: own.actor } : {}),
    });
    const limits = limitsOf(ctx);
    const { items, truncated } = capList(changes, input.limit ?? 100);
    const counts = { insert: 0, update: 0, delete: 0 };
    for (const change of changes) counts[change.kind]++;
    return {
      changes: items.map((change) => changeSummary(change, limits.maxValueChars)),
      total: changes.length,
      counts,
      truncated,
      note: changes.length === 0 ? 'Nothing is staged.' : STAGING_NOTE,
    };
  },
});

export const diffStagedChanges = defineTool({
  inputSchema: z.strictObject({
    ids: within(z.array(positiveInteger()), 1, 500)
      .optional()
      .describe('Only these change ids (default: all).'),
    table: tableName.optional().describe('Only changes to this table (default: all).'),
    limit: limitField(50, 500),
  }),
  async execute(input, ctx) {
    const table =
      input.table === undefined
        ? undefined
        : (await ctx.source.schema.resolveTable(input.table)).qualifiedName;
    const own = ownRecords(ctx);
    const diffs = await ctx.state.staging.diff({
      ...(input.ids ? { ids: input.ids } : {}),
      ...(table ? { table } : {}),
      ...(own.actor ? { stagedBy: own.actor } : {}),
    });
    const limits = limitsOf(ctx);
    const { items, truncated } = capList(diffs, input.limit ?? 50);
    return {
      diffs: items.map((diff) => ({
        id: diff.change.id,
        kind: diff.change.kind,
        table: diff.change.table,
        key: diff.change.key === null ? null : modelValue(diff.change.key, limits.maxValueChars),
        columns: diff.columns.map((column) => ({
          column: column.column,
          before: column.before === undefined ? null : modelValue(column.before, limits.maxValueChars),
          after: column.after === undefined ? null : modelValue(column.after, limits.maxValueChars),
        })),
      })),
      total: diffs.length,
      truncated,
      note: diffs.length === 0 ? 'Nothing is staged.' : STAGING_NOTE,
    };
  },
});

/** An export job as the model reads it. */
export function exportSummary(job: ExportJob) {
  const percent =
    job.rowsEstimate && job.rowsEstimate > 0
      ? Math.min(100, Math.round((job.rowsDone / job.rowsEstimate) * 100))
      : null;
  return {
    id: job.id,
    state: job.state,
    format: job.format,
    path: job.path,
    rowsDone: job.rowsDone,
    rowsEstimate: job.rowsEstimate,
    ...(percent !== null && job.state === 'running' ? { percent } : {}),
    bytesWritten: job.bytesWritten,
    ...(job.error ? { error: job.error } : {}),
    createdAt: job.createdAt.toISOString(),
    ...(job.finishedAt ? { finishedAt: job.finishedAt.toISOString() } : {}),
  };
}

export const getExportStatus = defineTool({
  inputSchema: z.strictObject({
    id: textField(100).describe('The export id that startExport returned.'),
  }),
  async execute(input, ctx) {
    const job = await ctx.state.exports.status(input.id);
    const own = ownRecords(ctx);
    // Another caller's job reads as unknown: its id says nothing about whether it exists.
    if (own.actor && job.actor !== own.actor) {
      throw new DataSourceError('not-found', `No export job with id '${input.id}'.`);
    }
    return exportSummary(job);
  },
});

export const listAuditLog = defineTool({
  inputSchema: z.strictObject({
    tool: textField(100).optional().describe('Only entries for this tool.'),
    decision: z.enum(AUDIT_DECISIONS).optional().describe('Only entries with this decision.'),
    limit: limitField(50, 500),
  }),
  async execute(input, ctx) {
    const limit = input.limit ?? 50;
    // The profile's entries alone: a connection's log is its own, like its staging area.
    const entries = await ctx.state.audit.list({
      limit: limit + 1,
      profile: ctx.profile,
      ...ownRecords(ctx),
      ...(input.tool ? { tool: input.tool } : {}),
      ...(input.decision ? { decision: input.decision } : {}),
    });
    return {
      entries: entries.slice(0, limit).map((entry) => ({
        at: entry.createdAt.toISOString(),
        tool: entry.tool,
        decision: entry.decision,
        decidedBy: entry.decidedBy,
        profile: entry.profile,
        ...(entry.summary ? { summary: entry.summary } : {}),
        ...(entry.table ? { table: entry.table } : {}),
        ...(entry.detail ? { detail: entry.detail } : {}),
      })),
      truncated: entries.length > limit,
    };
  },
});
