import { type ColumnInfo, DataSourceError } from '@toolrow/datasource';

// PostgreSQL's integer types hold a fixed range, and a JSON number above 2^53 has already lost
// digits before it arrives. Both are said here, naming the column, rather than as PostgreSQL's
// "out of range for type integer" or a key that silently became another number.
const INTEGER_RANGES: Record<number, { name: string; min: bigint; max: bigint }> = {
  21: { name: 'smallint', min: -32768n, max: 32767n },
  23: { name: 'integer', min: -2147483648n, max: 2147483647n },
  20: { name: 'bigint', min: -9223372036854775808n, max: 9223372036854775807n },
};

const group = (value: bigint) => value.toLocaleString('en-US');

/**
 * Throws `code` when `value` cannot be a value of an integer column: a fraction, a number JSON
 * could not carry exactly, or one outside the type's range. Other columns and values pass.
 */
export function checkIntegerValue(
  column: Pick<ColumnInfo, 'name' | 'typeId'>,
  value: unknown,
  where: string,
  code: 'invalid-filter' | 'invalid-key',
): void {
  const range = INTEGER_RANGES[column.typeId ?? 0];
  if (!range) return;
  let whole: bigint;
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) {
      throw new DataSourceError(
        code,
        `${where}: column '${column.name}' is ${range.name}, so ${value} (not a whole number) cannot be one of its values.`,
      );
    }
    if (!Number.isSafeInteger(value)) {
      throw new DataSourceError(
        code,
        `${where}: column '${column.name}' is ${range.name}, and the number arrived as ${BigInt(value)}: a JSON number beyond ±${group(BigInt(Number.MAX_SAFE_INTEGER))} loses digits on the way. Pass it as a string ("12345678901234567890") to keep every digit.`,
      );
    }
    whole = BigInt(value);
  } else if (typeof value === 'string' && /^\s*[-+]?\d+\s*$/.test(value)) {
    whole = BigInt(value.trim());
  } else if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) {
    throw new DataSourceError(
      code,
      `${where}: column '${column.name}' is ${range.name}, so '${value.trim()}' (not written as a whole number) cannot be one of its values.`,
    );
  } else {
    return; // other spellings are for PostgreSQL (or the caller's own type check) to judge
  }
  if (whole < range.min || whole > range.max) {
    throw new DataSourceError(
      code,
      `${where}: column '${column.name}' is ${range.name}, which holds ${group(range.min)} to ${group(range.max)}; ${whole} is outside that, so no row can have it.`,
    );
  }
}
