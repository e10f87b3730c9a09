// The raw path for text lines on PGlite (in the calling thread and in its worker): a FETCH's reply
// read straight from the wire bytes, the first column of each DataRow copied out. Parsing the same
// reply into row objects costs several times the FETCH itself.
import { messages, type PGlite, protocol } from '@electric-sql/pglite';
import type { TextLines } from '../database.ts';

const DATA_ROW = 0x44; // 'D'
const ERROR_RESPONSE = 0x45; // 'E'
const LF = 0x0a;

/** PGlite's DatabaseError from an ErrorResponse body: the same fields a parsed reply carries. */
function databaseError(reply: Uint8Array, at: number, end: number): Error {
  const fields: Record<string, string> = {};
  const decoder = new TextDecoder();
  let cursor = at + 5;
  while (cursor < end && reply[cursor] !== 0) {
    const code = String.fromCharCode(reply[cursor]!);
    const stop = reply.indexOf(0, cursor + 1);
    fields[code] = decoder.decode(reply.subarray(cursor + 1, stop));
    cursor = stop + 1;
  }
  const error = new messages.DatabaseError(fields.M ?? 'unknown error', end - at, 'error');
  const named: Record<string, string | undefined> = {
    severity: fields.S,
    code: fields.C,
    detail: fields.D,
    hint: fields.H,
    position: fields.P,
    where: fields.W,
    schema: fields.s,
    table: fields.t,
    column: fields.c,
    constraint: fields.n,
  };
  for (const [key, value] of Object.entries(named)) {
    if (value !== undefined) (error as unknown as Record<string, string>)[key] = value;
  }
  return error;
}

/**
 * The first column of every DataRow in a raw protocol reply, each followed by LF (NULL: an empty
 * line). Throws the reply's ErrorResponse as PGlite's DatabaseError.
 */
export function dataRowLines(reply: Uint8Array): TextLines {
  const view = new DataView(reply.buffer, reply.byteOffset, reply.byteLength);
  let size = 0;
  let rows = 0;
  for (let at = 0; at + 5 <= reply.byteLength; at += 1 + view.getInt32(at + 1)) {
    const type = reply[at];
    if (type === ERROR_RESPONSE) throw databaseError(reply, at, at + 1 + view.getInt32(at + 1));
    if (type !== DATA_ROW) continue;
    const length = view.getInt32(at + 7);
    size += Math.max(length, 0) + 1;
    rows++;
  }
  const bytes = new Uint8Array(size);
  let out = 0;
  for (let at = 0; at + 5 <= reply.byteLength; at += 1 + view.getInt32(at + 1)) {
    if (reply[at] !== DATA_ROW) continue;
    // DataRow: type, length (int32), column count (int16), value length (int32), value.
    const length = view.getInt32(at + 7);
    if (length > 0) {
      bytes.set(reply.subarray(at + 11, at + 11 + length), out);
      out += length;
    }
    bytes[out++] = LF;
  }
  return { bytes, rows };
}

/** Runs one statement over the simple protocol and returns its rows' first column as lines. */
export async function pgliteLines(pglite: PGlite, sql: string): Promise<TextLines> {
  // The stream form hands over the wire bytes as they are written; execProtocolRaw also parses
  // every message into objects on the way, which costs more than the FETCH. The chunks are views
  // of the engine's memory, reused for the next write: copied. A read: nothing to sync to disk.
  const chunks: Uint8Array[] = [];
  await pglite.execProtocolRawStream(protocol.serialize.query(sql), {
    syncToFs: false,
    onRawData: (chunk) => {
      chunks.push(chunk.slice());
    },
  });
  return dataRowLines(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
}
