// A structured filter as DynamoDB reads it: equality on a partition key (the table's or an
// index's), with an optional condition on its sort key, becomes a Query on that key; the rest is a
// filter expression. Without one, it is a Scan of the whole table with the filter expression.
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import {
  DataSourceError,
  FILTER_OPS,
  type Filter,
  type FilterCondition,
  type FilterOp,
  type FilterScalar,
  type TableInfo,
} from '@toolrow/datasource';
import type { DynamoKeys } from './schema.ts';
import { toAttribute } from './values.ts';

export interface ReadPlan {
  operation: 'Query' | 'Scan';
  index?: string;
  /** KeyConditionExpression (Query). */
  keyCondition?: string;
  filter?: string;
  names: Record<string, string>;
  values: Record<string, AttributeValue>;
  /** The key condition as a person reads it ("customer_id = 'c-17'"). */
  describe: string;
}

const SORT_KEY_OPS = new Set(['eq', 'lt', 'lte', 'gt', 'gte', 'between', 'starts_with']);

/** The filter operators DynamoDB has: no pattern matching, no suffix test (its filter expressions lack them). */
export const DYNAMO_FILTER_OPS = FILTER_OPS.filter(
  (op) => op !== 'like' && op !== 'ilike' && op !== 'ends_with',
) as readonly FilterOp[];

class Builder {
  names: Record<string, string> = {};
  values: Record<string, AttributeValue> = {};
  private nameIds = new Map<string, string>();
  private valueCount = 0;
  private readonly table: TableInfo;
  constructor(table: TableInfo) {
    this.table = table;
  }

  name(attribute: string): string {
    let id = this.nameIds.get(attribute);
    if (!id) {
      id = `#a${this.nameIds.size}`;
      this.nameIds.set(attribute, id);
      this.names[id] = attribute;
    }
    return id;
  }

  value(attribute: string, value: unknown): string {
    const id = `:v${this.valueCount++}`;
    const types = this.table.columns.find((column) => column.name === attribute)?.type.split('|') ?? [];
    this.values[id] = toAttribute(value, `filter on ${attribute}`, types);
    return id;
  }

  condition(condition: FilterCondition): string {
    const column = this.table.columns.find((each) => each.name === condition.column);
    const attribute = column?.name ?? condition.column;
    const name = this.name(attribute);
    const list = (): FilterScalar[] => {
      if (!Array.isArray(condition.value)) {
        throw new DataSourceError(
          'invalid-filter',
          `filter on ${attribute}: '${condition.op}' takes a list of values.`,
        );
      }
      return condition.value;
    };
    const one = () => this.value(attribute, condition.value);
    switch (condition.op) {
      case 'eq':
        return `${name} = ${one()}`;
      case 'neq':
        return `${name} <> ${one()}`;
      case 'lt':
        return `${name} < ${one()}`;
      case 'lte':
        return `${name} <= ${one()}`;
      case 'gt':
        return `${name} > ${one()}`;
      case 'gte':
        return `${name} >= ${one()}`;
      case 'between': {
        const [low, high] = list();
        return `${name} BETWEEN ${this.value(attribute, low)} AND ${this.value(attribute, high)}`;
      }
      case 'in':
        return `${name} IN (${list()
          .map((each) => this.value(attribute, each))
          .join(', ')})`;
      case 'not_in':
        return `NOT (${name} IN (${list()
          .map((each) => this.value(attribute, each))
          .join(', ')}))`;
      case 'contains':
        return `contains(${name}, ${this.value(attribute, String(condition.value))})`;
      case 'starts_with':
        return `begins_with(${name}, ${this.value(attribute, String(condition.value))})`;
      case 'is_null':
        return `(attribute_not_exists(${name}) OR attribute_type(${name}, ${this.typeValue('NULL')}))`;
      case 'is_not_null':
        return `(attribute_exists(${name}) AND NOT attribute_type(${name}, ${this.typeValue('NULL')}))`;
      case 'like':
      case 'ilike':
      case 'ends_with':
        throw new DataSourceError(
          'invalid-filter',
          `filter on ${attribute}: DynamoDB has no '${condition.op}'. Use 'contains' or 'starts_with' (case-sensitive).`,
        );
    }
  }

  private typeValue(type: string): string {
    const id = `:t${type}`;
    this.values[id] = { S: type };
    return id;
  }

  expression(filter: Filter): string {
    if ('and' in filter)
      return filter.and.length === 0
        ? ''
        : `(${filter.and
            .map((each) => this.expression(each))
            .filter(Boolean)
            .join(' AND ')})`;
    if ('or' in filter)
      return filter.or.length === 0
        ? ''
        : `(${filter.or
            .map((each) => this.expression(each))
            .filter(Boolean)
            .join(' OR ')})`;
    if ('not' in filter) return `NOT (${this.expression(filter.not)})`;
    return this.condition(filter);
  }
}

/** The conditions of a top-level AND (or the one condition): the only ones a key condition can take. */
function conjuncts(filter: Filter | undefined): Filter[] {
  if (!filter) return [];
  if ('and' in filter) return filter.and.flatMap((each) => conjuncts(each));
  return [filter];
}

const isCondition = (filter: Filter): filter is FilterCondition => 'column' in filter;

/** Plans a read of `table` under `filter`: a Query where a key serves it, else a Scan. */
export function planRead(table: TableInfo, keys: DynamoKeys, filter: Filter | undefined): ReadPlan {
  const parts = conjuncts(filter);
  const candidates = [
    { index: undefined as string | undefined, partitionKey: keys.partitionKey, sortKey: keys.sortKey },
    ...keys.indexes.map((index) => ({
      index: index.name,
      partitionKey: index.partitionKey,
      sortKey: index.sortKey,
    })),
  ];
  for (const candidate of candidates) {
    const partition = parts.find(
      (part) => isCondition(part) && part.column === candidate.partitionKey && part.op === 'eq',
    ) as FilterCondition | undefined;
    if (!partition) continue;
    const sort = candidate.sortKey
      ? (parts.find(
          (part) => isCondition(part) && part.column === candidate.sortKey && SORT_KEY_OPS.has(part.op),
        ) as FilterCondition | undefined)
      : undefined;
    const builder = new Builder(table);
    const keyParts = [builder.condition(partition), ...(sort ? [builder.condition(sort)] : [])];
    const rest = parts.filter((part) => part !== partition && part !== sort);
    const filterText = rest
      .map((part) => builder.expression(part))
      .filter(Boolean)
      .join(' AND ');
    return {
      operation: 'Query',
      ...(candidate.index ? { index: candidate.index } : {}),
      keyCondition: keyParts.join(' AND '),
      ...(filterText ? { filter: filterText } : {}),
      names: builder.names,
      values: builder.values,
      describe: [partition, ...(sort ? [sort] : [])].map(describeCondition).join(' AND '),
    };
  }
  const builder = new Builder(table);
  const filterText = filter ? builder.expression(filter) : '';
  return {
    operation: 'Scan',
    ...(filterText ? { filter: filterText } : {}),
    names: builder.names,
    values: builder.values,
    describe: 'the whole table',
  };
}

function describeCondition(condition: FilterCondition): string {
  const value = JSON.stringify(condition.value);
  const op = {
    eq: '=',
    lt: '<',
    lte: '<=',
    gt: '>',
    gte: '>=',
    between: 'BETWEEN',
    starts_with: 'begins with',
  }[condition.op as 'eq'];
  return `${condition.column} ${op ?? condition.op} ${value}`;
}
