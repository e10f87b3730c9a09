// searchTools' input schema alone (`@toolrow/agent/search-input`): zod, and nothing of the AI SDK.
import { z } from 'zod';

/** The input schema of searchTools, which this package owns. */
export const searchToolsInputSchema = z.object({
  query: z
    .string()
    .min(1)
    .describe('A few words about the capability you need, e.g. "export csv" or "foreign keys".'),
});
