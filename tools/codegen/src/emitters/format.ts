// Small printers shared by the emitters. The output is deterministic and already in the
// repository's style, so generated files never need the formatter.

export function quote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** `[\n  'a',\n  'b',\n]` — one entry per line, so a one-row edit is a one-line diff. */
export function stringArray(values: readonly string[]): string {
  if (values.length === 0) return '[]';
  return `[\n${values.map((value) => `  ${quote(value)},`).join('\n')}\n]`;
}

/** `{\n  key: 'value',\n}` with keys quoted only when they must be. */
export function stringRecord(entries: readonly (readonly [string, string])[]): string {
  if (entries.length === 0) return '{}';
  return `{\n${entries.map(([key, value]) => `  ${propertyKey(key)}: ${quote(value)},`).join('\n')}\n}`;
}

/** `{\n  key: [\n    'a',\n  ],\n}`. */
export function arrayRecord(entries: readonly (readonly [string, readonly string[]])[]): string {
  const body = entries
    .map(([key, values]) => `  ${propertyKey(key)}: ${stringArray(values).replace(/\n/g, '\n  ')},`)
    .join('\n');
  return `{\n${body}\n}`;
}

/** `{\n  outer: {\n    key: [\n      'a',\n    ],\n  },\n}`. */
export function nestedArrayRecord(
  entries: readonly (readonly [string, readonly (readonly [string, readonly string[]])[]])[],
): string {
  const body = entries
    .map(([key, inner]) => `  ${propertyKey(key)}: ${arrayRecord(inner).replace(/\n/g, '\n  ')},`)
    .join('\n');
  return `{\n${body}\n}`;
}

export function propertyKey(key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? key : quote(key);
}

export function docComment(text: string): string {
  return `/** ${text} */`;
}

/** Joins sections with one blank line and ends the file with a newline. */
export function file(...sections: string[]): string {
  return `${sections.join('\n\n')}\n`;
}
