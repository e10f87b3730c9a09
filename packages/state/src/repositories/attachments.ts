// Files a user attached to a chat, kept for the agent to read.

import { randomUUID } from 'node:crypto';
import { DataSourceError, DEFAULT_PROFILE, didYouMean, nearestNames, type Row } from '@toolrow/datasource';
import { sql } from 'kysely';
import type { Attachment, AttachmentWithContent } from '../app-types.ts';
import { byteLength, date, nextValue, type StateDb } from '../store/state-db.ts';

/** What the store keeps of attachments. */
export interface AttachmentRepository {
  add(attachment: {
    profile?: string;
    name: string;
    mediaType: string;
    content: Uint8Array | string;
  }): Promise<Attachment>;
  /** By id, or by name (the newest of that name). Throws DataSourceError 'not-found'. */
  get(idOrName: string, profile?: string): Promise<AttachmentWithContent>;
  list(profile?: string): Promise<Attachment[]>;
  delete(id: string): Promise<boolean>;
}

const toAttachment = (row: Row): Attachment => ({
  id: row.id as string,
  profile: row.profile as string,
  name: row.name as string,
  mediaType: row.media_type as string,
  sizeBytes: Number(row.size_bytes),
  createdAt: date(row.created_at),
});

export function createAttachments(db: StateDb): AttachmentRepository {
  const { q, dialect } = db;
  const attachmentColumns = ['id', 'profile', 'name', 'media_type', 'created_at'] as const;
  return {
    async add(attachment) {
      const content =
        typeof attachment.content === 'string'
          ? new TextEncoder().encode(attachment.content)
          : attachment.content;
      const row = await q
        .insertInto('attachments')
        .values({
          id: randomUUID(),
          profile: attachment.profile ?? DEFAULT_PROFILE,
          name: attachment.name,
          media_type: attachment.mediaType,
          content,
          seq: nextValue(dialect, 'attachments.seq'),
        })
        .returning([...attachmentColumns, byteLength(dialect, 'content').as('size_bytes')])
        .executeTakeFirstOrThrow();
      return toAttachment(row);
    },
    async get(idOrName, profile = DEFAULT_PROFILE) {
      const row = await q
        .selectFrom('attachments')
        .select([...attachmentColumns, 'content', byteLength(dialect, 'content').as('size_bytes')])
        .where((eb) =>
          eb.or([eb('id', '=', idOrName), eb.and([eb('name', '=', idOrName), eb('profile', '=', profile)])]),
        )
        .orderBy(sql`(id = ${idOrName})`, 'desc')
        .orderBy('seq', 'desc')
        .limit(1)
        .executeTakeFirst();
      if (!row) {
        const names = (
          await q
            .selectFrom('attachments')
            .select('name')
            .distinct()
            .where('profile', '=', profile)
            .orderBy('name')
            .execute()
        ).map((item) => item.name);
        throw new DataSourceError(
          'not-found',
          `No attachment '${idOrName}'.${didYouMean(nearestNames(idOrName, names))} ${
            names.length > 0
              ? `Attached: ${names.slice(0, 20).join(', ')}.`
              : 'Nothing is attached to this chat.'
          }`,
        );
      }
      const raw = row.content;
      return { ...toAttachment(row), content: new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength) };
    },
    async list(profile = DEFAULT_PROFILE) {
      const rows = await q
        .selectFrom('attachments')
        .select([...attachmentColumns, byteLength(dialect, 'content').as('size_bytes')])
        .where('profile', '=', profile)
        .orderBy('seq', 'desc')
        .execute();
      return rows.map(toAttachment);
    },
    async delete(id) {
      const result = await q.deleteFrom('attachments').where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}
