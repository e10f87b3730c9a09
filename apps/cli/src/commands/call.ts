import { parseArgs } from 'node:util';
import { searchAnswer } from '@toolrow/agent/search';
import { searchToolsInputSchema } from '@toolrow/agent/search-input';
import { backgroundJobOf, isLoop, isToolName, TOOL_NAMES } from '@toolrow/catalog';
import { nearestNames } from '@toolrow/datasource';
import {
  inputJsonSchema,
  invokeTool,
  isImplementedTool,
  isToolError,
  missingImplementationMessage,
  parseToolInput,
} from '@toolrow/tools';
import { z } from 'zod';
import { AppError, openOrApp, postToApp } from '../app-client.ts';
import { chartFormatOf, writeChartFile } from '../chart-file.ts';
import { type Command, type CommandIo, UsageError } from '../command.ts';
import { toJson } from '../format.ts';

const USAGE = `Usage: toolrow call <tool> ['<json input>'] [--profile <name>] [--schema] [--out <chart.svg|chart.png>]

Runs one tool as the user would (actor 'user') and prints its JSON output. Gated tools run
without asking (you are the user); stage tools still only stage: commit with \`toolrow staging commit\`.
While the app (npm start) holds the database, the call goes through it.

  <json input>      the tool's input as one JSON object (default {})
  --profile <name>  whose UI state, history and attachments to use (default: TOOLROW_PROFILE, else the connection's own)
  --schema          print the tool's input JSON Schema instead of running it
  --out <file>      drawChart: write the chart to an .svg or .png file (drawn here, nothing fetched)

Example: toolrow call runQuery '{"sql":"select status, count(*) from orders group by 1"}'
         toolrow call drawChart '{"sql":"select status, count(*) as n from orders group by 1","spec":{"mark":"bar","encoding":{"x":{"field":"status"},"y":{"field":"n"}}}}' --out chart.svg`;

function parseInput(text: string | undefined): unknown {
  if (text === undefined) return {};
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `The input is not valid JSON (${(error as Error).message}). Quote it for the shell, e.g. '{"table":"orders"}'.`,
    );
  }
}

// The loop tool is the agent's; from the CLI it only ranks the catalog (nothing gets activated).
function searchFromCli(input: unknown, io: CommandIo): number {
  const parsed = searchToolsInputSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    io.stderr(
      `toolrow call: Invalid input for searchTools: ${issue?.path.join('.') || '(input)'}: ${issue?.message}\n`,
    );
    return 2;
  }
  // What the agent's searchTools answers (its note names the way back), and what the CLI is not.
  const { answer } = searchAnswer(parsed.data.query);
  io.stdout(
    toJson({
      ...answer,
      cli: 'From the CLI this only ranks the catalog; in a chat the matches become callable in the next step.',
    }),
  );
  return 0;
}

/** How a background job ended, as `toolrow call` reports it after waiting. */
export interface FinishedJob {
  state: string;
  rowsDone?: number;
  path?: string;
  error?: string | null;
}

export const callCommand: Command = {
  usage: USAGE,
  async run(args, io) {
    let parsed: { values: { profile?: string; schema?: boolean; out?: string }; positionals: string[] };
    try {
      parsed = parseArgs({
        args,
        options: { profile: { type: 'string' }, schema: { type: 'boolean' }, out: { type: 'string' } },
        allowPositionals: true,
      });
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const [name, inputText, ...extra] = parsed.positionals;
    if (!name) throw new UsageError(`Name the tool to call. The tools: ${TOOL_NAMES.join(', ')}.`);
    if (extra.length > 0) {
      throw new UsageError(
        `Expected one JSON argument after the tool name, got ${extra.length + 1}. Quote the JSON for the shell.`,
      );
    }
    if (!isToolName(name)) {
      const suggestions = nearestNames(name, TOOL_NAMES);
      throw new UsageError(
        `There is no tool '${name}'.${suggestions.length > 0 ? ` Did you mean ${suggestions.map((candidate) => `'${candidate}'`).join(' or ')}?` : ''} List them with \`toolrow catalog\`.`,
      );
    }
    if (isLoop(name)) {
      if (parsed.values.schema) {
        io.stdout(toJson(z.toJSONSchema(searchToolsInputSchema, { io: 'input' })));
        return 0;
      }
      return searchFromCli(parseInput(inputText), io);
    }
    if (!isImplementedTool(name)) throw new UsageError(missingImplementationMessage(name));
    if (parsed.values.schema) {
      io.stdout(toJson(inputJsonSchema(name)));
      return 0;
    }
    const input = parseInput(inputText);
    const out = parsed.values.out;
    if (out !== undefined) chartFormatOf(out);
    /** Prints the output, with the background job's end where there was one; a failed job exits 1. */
    const report = async (output: unknown, finished: FinishedJob | undefined): Promise<number> => {
      if (!finished) {
        io.stdout(toJson(out === undefined ? output : await writeChartFile(name, output, out)));
        return 0;
      }
      io.stdout(toJson({ ...(output as object), ...finished }));
      if (finished.state === 'done') return 0;
      io.stderr(
        `toolrow call ${name}: the export ${finished.state === 'cancelled' ? 'was cancelled' : 'failed'}${finished.error ? `: ${finished.error}` : ''}. No file was left.\n`,
      );
      return 1;
    };
    const fail = (error: { message: string; code: string }): number => {
      io.stderr(`toolrow call ${name}: ${error.message}\n`);
      if (error.code !== 'invalid-input') return 1;
      io.stderr(`See the input schema with: toolrow call ${name} --schema\n`);
      return 2;
    };
    // A bad input fails before the database opens (PGlite takes a second or more to open).
    try {
      parseToolInput(name, input);
    } catch (error) {
      if (isToolError(error)) return fail(error);
      throw error;
    }
    const opened = await openOrApp(io);
    // Without --profile, the connection's own profile (its name), here or in the app.
    const asked = parsed.values.profile ?? io.env.TOOLROW_PROFILE;
    if ('app' in opened) {
      // The app holds the database: the same call through it, as the user, waiting for an export's file.
      try {
        const { output, finished } = await postToApp<{ output: unknown; finished?: FinishedJob }>(
          opened.app,
          `/api/tools/${name}`,
          { input, ...(asked ? { profile: asked } : {}), waitForExports: true },
        );
        return await report(output, finished);
      } catch (error) {
        if (error instanceof AppError && error.status !== 401) return fail(error);
        throw error;
      }
    }
    const { toolrow } = opened;
    const { source, state } = toolrow;
    const profile = asked ?? toolrow.connection.profile;
    try {
      await state.profiles.ensure(profile);
      const output = await invokeTool(name, input, { source, state, profile, actor: 'user' });
      // A tool that writes a file in the background: the command ends with the file, and says how it ended.
      const id = backgroundJobOf(name, output);
      if (id === undefined) return await report(output, undefined);
      await state.exports.idle();
      return await report(output, await state.exports.status(id));
    } catch (error) {
      if (isToolError(error)) return fail(error);
      throw error;
    } finally {
      // Waits for a background export to finish, so the file is complete when the command exits.
      await toolrow.close();
    }
  },
};
