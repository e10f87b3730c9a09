/**
 * One set of value parsers for both engines, so a row reads the same on PGlite and PostgreSQL.
 * See README "Values".
 */

export const OID = {
  int8: 20,
  date: 1082,
  time: 1083,
  timestamp: 1114,
  timestamptz: 1184,
  interval: 1186,
  numeric: 1700,
} as const;

export function parseInt8(text: string): number | string {
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : text;
}

const TIMESTAMP = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d(?:\.\d+)?)$/;
const TIMESTAMPTZ = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d(?:\.\d+)?)([+-]\d\d)(?::?(\d\d))?(?::?(\d\d))?$/;

/** timestamp without time zone: read as UTC (the value has no zone; UTC keeps it engine- and host-independent). */
export function parseTimestamp(text: string): Date | string {
  const match = TIMESTAMP.exec(text);
  if (!match) return text; // infinity, BC dates, years past 9999: keep Postgres's text
  const date = new Date(`${match[1]}T${match[2]}Z`);
  return Number.isNaN(date.getTime()) ? text : date;
}

export function parseTimestamptz(text: string): Date | string {
  const match = TIMESTAMPTZ.exec(text);
  if (!match || match[5]) return text; // second-precision offsets (historic zones) stay text
  const date = new Date(`${match[1]}T${match[2]}${match[3]}:${match[4] ?? '00'}`);
  return Number.isNaN(date.getTime()) ? text : date;
}

const identity = (text: string) => text;

/** Parsers by type OID for the text format; other types use each engine's defaults (which agree). */
export const PARSERS: Record<number, (text: string) => unknown> = {
  [OID.int8]: parseInt8,
  [OID.date]: identity,
  [OID.time]: identity,
  [OID.timestamp]: parseTimestamp,
  [OID.timestamptz]: parseTimestamptz,
  [OID.interval]: identity,
  [OID.numeric]: identity,
};
