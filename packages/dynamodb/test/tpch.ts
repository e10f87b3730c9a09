// TPC-H's eight tables at a small scale factor, made here (dbgen is not on npm): the schema, keys
// and value domains of the specification (nations and regions, segments, priorities, ship modes,
// part names from its colour words, types and containers from its syllables, orders only for two
// customers in three, return flags and line status from the dates), deterministic from a seed.
// Loaded into DynamoDB with the AWS SDK alone (another tool's writes, not Toolrow's) and into
// plain DuckDB as the reference.
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DuckDBConnection } from '@duckdb/node-api';
import { itemOf, writeTables } from './bare-sdk.ts';

export type Value = string | number;
export type TpchRow = Record<string, Value>;

interface Column {
  name: string;
  /** The reference's type; DynamoDB holds numbers as N and everything else as S. */
  type: 'INTEGER' | 'DECIMAL(15,2)' | 'DATE' | 'VARCHAR';
}

export interface TpchTable {
  name: string;
  columns: Column[];
  key: [string] | [string, string];
  /** Global secondary indexes: name → partition key. */
  indexes?: Record<string, string>;
  rows: TpchRow[];
}

const NATIONS: [string, number][] = [
  ['ALGERIA', 0],
  ['ARGENTINA', 1],
  ['BRAZIL', 1],
  ['CANADA', 1],
  ['EGYPT', 4],
  ['ETHIOPIA', 0],
  ['FRANCE', 3],
  ['GERMANY', 3],
  ['INDIA', 2],
  ['INDONESIA', 2],
  ['IRAN', 4],
  ['IRAQ', 4],
  ['JAPAN', 2],
  ['JORDAN', 4],
  ['KENYA', 0],
  ['MOROCCO', 0],
  ['MOZAMBIQUE', 0],
  ['PERU', 1],
  ['CHINA', 2],
  ['ROMANIA', 3],
  ['SAUDI ARABIA', 4],
  ['VIETNAM', 2],
  ['RUSSIA', 3],
  ['UNITED KINGDOM', 3],
  ['UNITED STATES', 1],
];
const REGIONS = ['AFRICA', 'AMERICA', 'ASIA', 'EUROPE', 'MIDDLE EAST'];
const SEGMENTS = ['AUTOMOBILE', 'BUILDING', 'FURNITURE', 'MACHINERY', 'HOUSEHOLD'];
const PRIORITIES = ['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW'];
const INSTRUCTIONS = ['DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN'];
const MODES = ['REG AIR', 'AIR', 'RAIL', 'SHIP', 'TRUCK', 'MAIL', 'FOB'];
const COLOURS =
  'almond antique aquamarine azure beige bisque black blanched blue blush brown burlywood burnished chartreuse chiffon chocolate coral cornflower cornsilk cream cyan dark deep dim dodger drab firebrick floral forest frosted gainsboro ghost goldenrod green grey honeydew hot indian ivory khaki lace lavender lawn lemon light lime linen magenta maroon medium metallic midnight mint misty moccasin navajo navy olive orange orchid pale papaya peach peru pink plum powder puff purple red rose rosy royal saddle salmon sandy seashell sienna sky slate smoke snow spring steel tan thistle tomato turquoise violet wheat white yellow'.split(
    ' ',
  );
const TYPE_1 = ['STANDARD', 'SMALL', 'MEDIUM', 'LARGE', 'ECONOMY', 'PROMO'];
const TYPE_2 = ['ANODIZED', 'BURNISHED', 'PLATED', 'POLISHED', 'BRUSHED'];
const TYPE_3 = ['TIN', 'NICKEL', 'BRASS', 'STEEL', 'COPPER'];
const CONTAINER_1 = ['SM', 'LG', 'MED', 'JUMBO', 'WRAP'];
const CONTAINER_2 = ['CASE', 'BOX', 'BAG', 'JAR', 'PKG', 'PACK', 'CAN', 'DRUM'];
const WORDS =
  'furiously quickly carefully blithely slyly ironic final regular express pending bold even special silent unusual deposits requests packages accounts instructions theodolites foxes ideas platelets pinto beans dependencies excuses asymptotes courts dolphins'.split(
    ' ',
  );

/** A small deterministic generator (mulberry32). */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (low: number, high: number) => low + Math.floor(next() * (high - low + 1));
  const pick = <T>(list: readonly T[]) => list[int(0, list.length - 1)]!;
  /** Cents in [low, high] as a decimal with two places. */
  const money = (low: number, high: number) => int(Math.round(low * 100), Math.round(high * 100)) / 100;
  const text = (words: number) => Array.from({ length: words }, () => pick(WORDS)).join(' ');
  return { int, pick, money, text };
}

const DAY = 86_400_000;
const START = Date.UTC(1992, 0, 1);
const END = Date.UTC(1998, 7, 2);
const CURRENT = Date.UTC(1995, 5, 17);
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const phone = (nation: number, r: ReturnType<typeof random>) =>
  `${nation + 10}-${r.int(100, 999)}-${r.int(100, 999)}-${r.int(1000, 9999)}`;
const fixed2 = (value: number) => Math.round(value * 100) / 100;

export function generateTpch(scale = 0.01, seed = 20261206): TpchTable[] {
  const r = random(seed);
  const suppliers = Math.round(10_000 * scale);
  const customers = Math.round(150_000 * scale);
  const parts = Math.round(200_000 * scale);
  const orders = Math.round(1_500_000 * scale);

  const region = REGIONS.map((name, key) => ({ r_regionkey: key, r_name: name, r_comment: r.text(6) }));
  const nation = NATIONS.map(([name, regionKey], key) => ({
    n_nationkey: key,
    n_name: name,
    n_regionkey: regionKey,
    n_comment: r.text(8),
  }));
  const supplier = Array.from({ length: suppliers }, (_, index) => {
    const key = index + 1;
    const nationKey = r.int(0, 24);
    const roll = r.int(1, 100);
    // The specification's five in ten thousand with complaints, and as many recommends (Q16).
    const comment =
      roll <= 3
        ? `${r.text(2)} Customer ${r.text(1)} Complaints ${r.text(2)}`
        : roll <= 6
          ? `${r.text(2)} Customer ${r.text(1)} Recommends ${r.text(2)}`
          : r.text(7);
    return {
      s_suppkey: key,
      s_name: `Supplier#${String(key).padStart(9, '0')}`,
      s_address: r.text(2).replaceAll(' ', ','),
      s_nationkey: nationKey,
      s_phone: phone(nationKey, r),
      s_acctbal: r.money(-999.99, 9999.99),
      s_comment: comment,
    };
  });
  const part = Array.from({ length: parts }, (_, index) => {
    const key = index + 1;
    const names = new Set<string>();
    while (names.size < 5) names.add(r.pick(COLOURS));
    const manufacturer = r.int(1, 5);
    return {
      p_partkey: key,
      p_name: [...names].join(' '),
      p_mfgr: `Manufacturer#${manufacturer}`,
      p_brand: `Brand#${manufacturer}${r.int(1, 5)}`,
      p_type: `${r.pick(TYPE_1)} ${r.pick(TYPE_2)} ${r.pick(TYPE_3)}`,
      p_size: r.int(1, 50),
      p_container: `${r.pick(CONTAINER_1)} ${r.pick(CONTAINER_2)}`,
      p_retailprice: fixed2((90_000 + ((key / 10) % 20_001) + 100 * (key % 1000)) / 100),
      p_comment: r.text(3),
    };
  });
  const supplierOf = (partKey: number, nth: number) =>
    ((partKey + nth * (suppliers / 4 + Math.floor((partKey - 1) / suppliers))) % suppliers) + 1;
  const partsupp = part.flatMap((each) =>
    [0, 1, 2, 3].map((nth) => ({
      ps_partkey: each.p_partkey,
      ps_suppkey: supplierOf(each.p_partkey, nth),
      ps_availqty: r.int(1, 9999),
      ps_supplycost: r.money(1, 1000),
      ps_comment: r.text(10),
    })),
  );
  const customer = Array.from({ length: customers }, (_, index) => {
    const key = index + 1;
    const nationKey = r.int(0, 24);
    return {
      c_custkey: key,
      c_name: `Customer#${String(key).padStart(9, '0')}`,
      c_address: r.text(2).replaceAll(' ', ','),
      c_nationkey: nationKey,
      c_phone: phone(nationKey, r),
      c_acctbal: r.money(-999.99, 9999.99),
      c_mktsegment: r.pick(SEGMENTS),
      c_comment: r.text(6),
    };
  });
  const order: TpchRow[] = [];
  const lineitem: TpchRow[] = [];
  for (let index = 0; index < orders; index++) {
    // Sparse keys, as dbgen's: eight of every thirty-two.
    const key = Math.floor(index / 8) * 32 + (index % 8) + 1;
    let custKey = r.int(1, customers);
    while (custKey % 3 === 0) custKey = r.int(1, customers);
    const orderDate = START + r.int(0, Math.floor((END - START) / DAY) - 151) * DAY;
    const lines = r.int(1, 7);
    let total = 0;
    let shipped = 0;
    for (let line = 1; line <= lines; line++) {
      const partKey = r.int(1, parts);
      const quantity = r.int(1, 50);
      const price = fixed2(quantity * part[partKey - 1]!.p_retailprice);
      const discount = r.int(0, 10) / 100;
      const tax = r.int(0, 8) / 100;
      const shipDate = orderDate + r.int(1, 121) * DAY;
      const commitDate = orderDate + r.int(30, 90) * DAY;
      const receiptDate = shipDate + r.int(1, 30) * DAY;
      const status = shipDate > CURRENT ? 'O' : 'F';
      if (status === 'F') shipped++;
      total += price * (1 + tax) * (1 - discount);
      lineitem.push({
        l_orderkey: key,
        l_partkey: partKey,
        l_suppkey: supplierOf(partKey, r.int(0, 3)),
        l_linenumber: line,
        l_quantity: quantity,
        l_extendedprice: price,
        l_discount: discount,
        l_tax: tax,
        l_returnflag: receiptDate <= CURRENT ? r.pick(['R', 'A']) : 'N',
        l_linestatus: status,
        l_shipdate: iso(shipDate),
        l_commitdate: iso(commitDate),
        l_receiptdate: iso(receiptDate),
        l_shipinstruct: r.pick(INSTRUCTIONS),
        l_shipmode: r.pick(MODES),
        l_comment: r.text(3),
      });
    }
    const roll = r.int(1, 100);
    order.push({
      o_orderkey: key,
      o_custkey: custKey,
      o_orderstatus: shipped === lines ? 'F' : shipped === 0 ? 'O' : 'P',
      o_totalprice: fixed2(total),
      o_orderdate: iso(orderDate),
      o_orderpriority: r.pick(PRIORITIES),
      o_clerk: `Clerk#${String(r.int(1, Math.max(1, Math.round(1000 * scale)))).padStart(9, '0')}`,
      o_shippriority: 0,
      o_comment: roll <= 2 ? `${r.text(1)} special ${r.text(1)} requests ${r.text(1)}` : r.text(5),
    });
  }

  const columns = (row: TpchRow, types: Record<string, Column['type']>): Column[] =>
    Object.keys(row).map((name) => ({
      name,
      type:
        types[name] ?? (typeof row[name] === 'number' ? 'INTEGER' : /date$/.test(name) ? 'DATE' : 'VARCHAR'),
    }));
  const money = (...names: string[]) =>
    Object.fromEntries(names.map((name) => [name, 'DECIMAL(15,2)' as const]));
  return [
    { name: 'region', key: ['r_regionkey'], columns: columns(region[0]!, {}), rows: region },
    { name: 'nation', key: ['n_nationkey'], columns: columns(nation[0]!, {}), rows: nation },
    {
      name: 'supplier',
      key: ['s_suppkey'],
      columns: columns(supplier[0]!, money('s_acctbal')),
      rows: supplier,
    },
    {
      name: 'customer',
      key: ['c_custkey'],
      columns: columns(customer[0]!, money('c_acctbal')),
      rows: customer,
    },
    { name: 'part', key: ['p_partkey'], columns: columns(part[0]!, money('p_retailprice')), rows: part },
    {
      name: 'partsupp',
      key: ['ps_partkey', 'ps_suppkey'],
      columns: columns(partsupp[0]!, money('ps_supplycost')),
      rows: partsupp,
    },
    {
      name: 'orders',
      key: ['o_orderkey'],
      indexes: { by_custkey: 'o_custkey' },
      columns: columns(order[0]!, money('o_totalprice')),
      rows: order,
    },
    {
      name: 'lineitem',
      key: ['l_orderkey', 'l_linenumber'],
      indexes: { by_partkey: 'l_partkey' },
      columns: columns(lineitem[0]!, money('l_quantity', 'l_extendedprice', 'l_discount', 'l_tax')),
      rows: lineitem,
    },
  ];
}

/** Creates each table and writes its rows with the AWS SDK alone (numbers as N, the rest as S). */
export async function loadIntoDynamo(client: DynamoDBClient, tables: readonly TpchTable[]): Promise<void> {
  await writeTables(
    client,
    tables.map((table) => {
      const typeOf = (name: string): 'S' | 'N' =>
        table.columns.find((column) => column.name === name)!.type === 'VARCHAR' ? 'S' : 'N';
      return {
        name: table.name,
        key: table.key.map((name) => [name, typeOf(name)] as [string, 'S' | 'N']),
        ...(table.indexes
          ? {
              indexes: Object.fromEntries(
                Object.entries(table.indexes).map(([index, key]) => [
                  index,
                  [key, typeOf(key)] as [string, 'S' | 'N'],
                ]),
              ),
            }
          : {}),
        items: table.rows.map(itemOf),
      };
    }),
  );
}

/** The same tables in plain DuckDB, typed as the specification types them. */
export async function loadIntoDuckdb(
  connection: DuckDBConnection,
  tables: readonly TpchTable[],
): Promise<void> {
  for (const table of tables) {
    const raw = `raw_${table.name}`;
    await connection.run(
      `CREATE TEMP TABLE ${raw} (${table.columns.map((column) => `${column.name} VARCHAR`).join(', ')})`,
    );
    const appender = await connection.createAppender(raw);
    for (const row of table.rows) {
      for (const column of table.columns) appender.appendVarchar(String(row[column.name]));
      appender.endRow();
    }
    appender.closeSync();
    await connection.run(
      `CREATE TABLE ${table.name} AS SELECT ${table.columns.map((column) => `CAST(${column.name} AS ${column.type}) AS ${column.name}`).join(', ')} FROM ${raw}`,
    );
    await connection.run(`DROP TABLE ${raw}`);
  }
}
