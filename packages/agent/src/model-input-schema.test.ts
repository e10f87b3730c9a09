import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { modelInputSchema } from './turn.ts';

describe('modelInputSchema', () => {
  const input = z.strictObject({ table: z.string().describe('A table name.') });

  it('sends the JSON Schema without the $schema keyword', async () => {
    const json = await modelInputSchema(input).jsonSchema;
    expect(json).not.toHaveProperty('$schema');
    expect(json).toMatchObject({
      type: 'object',
      properties: { table: { type: 'string', description: 'A table name.' } },
    });
  });

  it('still validates with the zod schema', async () => {
    const { validate } = modelInputSchema(input);
    expect(await validate?.({ table: 'orders' })).toEqual({ success: true, value: { table: 'orders' } });
    expect(await validate?.({ table: 5 })).toMatchObject({ success: false });
  });
});
