// A reference's own filters written back as SQL (DuckDB turns its parse tree back into text), so a
// lookup's values can be taken after them from the rows the reference read.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Ref } from './analyze.ts';
import { treeText } from './statement-check.ts';

/** Each reference's own filters as SQL (DuckDB writes its parse tree back), for a lookup's values. */
export async function filtersAsSql(
  connection: DuckDBConnection,
  refs: readonly Ref[],
): Promise<Map<Ref, string>> {
  const out = new Map<Ref, string>();
  const wanted = refs.filter((ref) => ref.filters.length > 0);
  if (wanted.length === 0) return out;
  for (const ref of wanted) {
    const where =
      ref.filters.length === 1
        ? ref.filters[0]
        : { class: 'CONJUNCTION', type: 'CONJUNCTION_AND', alias: '', children: ref.filters };
    const tree = {
      error: false,
      statements: [
        {
          node: {
            type: 'SELECT_NODE',
            modifiers: [],
            cte_map: { map: [] },
            select_list: [
              {
                class: 'CONSTANT',
                type: 'VALUE_CONSTANT',
                alias: '',
                value: { type: { id: 'INTEGER', type_info: null }, is_null: false, value: 1 },
              },
            ],
            from_table: { type: 'EMPTY', alias: '', sample: null },
            where_clause: where,
            group_expressions: [],
            group_sets: [],
            aggregate_handling: 'STANDARD_HANDLING',
            having: null,
            sample: null,
            qualify: null,
          },
          named_param_map: [],
        },
      ],
    };
    try {
      const reader = await connection.runAndReadAll('SELECT json_deserialize_sql($1::JSON) AS sql', [
        treeText(tree),
      ]);
      const sql = String(reader.getRowObjects()[0]?.sql ?? '');
      const at = sql.indexOf(' WHERE ');
      if (at !== -1) out.set(ref, sql.slice(at + ' WHERE '.length));
    } catch {
      // Not written back: the lookup takes every value its source read.
    }
  }
  return out;
}
