// The model each profile chats with (its key kept apart, see model-keys.ts).
import type { ModelSetting, SavedModel } from '../app-types.ts';
import { date, type StateDb } from '../store/state-db.ts';

/** What the store keeps of models. */
export interface ModelRepository {
  /** The model saved for a profile in the app's Settings; null: none (TOOLROW_MODEL applies). */
  get(profile: string): Promise<SavedModel | null>;
  /** Saves the profile's model (no secret in it: keys are kept by writeModelKey). */
  set(profile: string, setting: ModelSetting): Promise<SavedModel>;
  /** Forgets the profile's model; false when there was none. */
  clear(profile: string): Promise<boolean>;
}

export function createModels(db: StateDb): ModelRepository {
  const { q } = db;
  const modelKeyOf = (profile: string) => `model:${profile}`;
  return {
    async get(profile) {
      const row = await q
        .selectFrom('settings')
        .select(['value', 'updated_at'])
        .where('key', '=', modelKeyOf(profile))
        .executeTakeFirst();
      if (!row) return null;
      return { profile, setting: JSON.parse(row.value) as ModelSetting, updatedAt: date(row.updated_at) };
    },
    async set(profile, setting) {
      // Only the known fields: nothing else (a key pasted into the wrong field) reaches the store.
      const clean: ModelSetting = {
        provider: setting.provider,
        modelId: setting.modelId,
        ...(setting.baseURL ? { baseURL: setting.baseURL } : {}),
        ...(setting.region ? { region: setting.region } : {}),
        ...(setting.awsProfile ? { awsProfile: setting.awsProfile } : {}),
      };
      const values = { value: JSON.stringify(clean), updated_at: new Date() };
      await q
        .insertInto('settings')
        .values({ key: modelKeyOf(profile), ...values })
        .onConflict((oc) => oc.column('key').doUpdateSet(values))
        .execute();
      return { profile, setting: clean, updatedAt: values.updated_at } satisfies SavedModel;
    },
    async clear(profile) {
      const result = await q.deleteFrom('settings').where('key', '=', modelKeyOf(profile)).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
