import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import {
  type Agent,
  approvalResponse,
  appStateGateStore,
  type Chip,
  chipOf,
  createAgent,
  isPermissionMode,
  PERMISSION_MODE_LABELS,
  PERMISSION_MODES,
  type PermissionMode,
  type TurnUsage,
  toolsBackend,
} from '@toolrow/agent';
import { describeCall, type EngineView } from '@toolrow/catalog';
import { DEFAULT_PROFILE } from '@toolrow/state';
import type { ModelMessage } from 'ai';
import { openToolrowWaiting } from '../app-client.ts';
import { type Command, UsageError } from '../command.ts';
import { modelForCommand } from '../model.ts';

const USAGE = `Usage: toolrow chat [--profile <name>] [--mode manual|auto|full-auto]

A terminal chat with the agent over the configured model (TOOLROW_MODEL) and database
(DATABASE_URL, else the embedded database in TOOLROW_DATA_DIR or ./.toolrow). Gated tools ask at
the prompt (y/N); a proposal is shown as a numbered choice: type its number to accept it.

  --profile <name>  whose permission mode, grants and audit log apply (default: TOOLROW_PROFILE or '${DEFAULT_PROFILE}')
  --mode <mode>     set the profile's permission mode first (manual, auto or full-auto)

In the chat: /mode <mode> switches mode, /exit (or end of input) leaves.`;

/** Everything the chat loop needs; the command builds it from the environment, tests build their own. */
export interface ChatSession {
  agent: Agent;
  profileId: string;
  /** The engine of the connection the chat works on: its tools are the ones the agent gets. */
  engine?: EngineView;
  /** Input lines (the answers to approval prompts come from here too). */
  lines: AsyncIterator<string>;
  write: (text: string) => void;
  /** The profile's current mode, and how to change it (for /mode). */
  mode(): Promise<PermissionMode>;
  setMode?(mode: PermissionMode): Promise<void>;
}

const clip = (text: string, max = 140) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const json = (value: unknown) => clip(JSON.stringify(value) ?? 'undefined');
const count = (value: number | undefined) => (value === undefined ? '?' : value.toLocaleString('en-US'));

function addUsage(total: TurnUsage, more: TurnUsage): TurnUsage {
  const add = (a: number | undefined, b: number | undefined) =>
    a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
  return {
    inputTokens: add(total.inputTokens, more.inputTokens),
    outputTokens: add(total.outputTokens, more.outputTokens),
    cachedInputTokens: add(total.cachedInputTokens, more.cachedInputTokens),
  };
}

/** Reads lines from a stream one at a time, so prompts and piped answers stay in step. */
export function lineReader(input: Readable): AsyncIterator<string> {
  const rl = createInterface({ input, terminal: false, crlfDelay: Number.POSITIVE_INFINITY });
  return rl[Symbol.asyncIterator]();
}

/** The chat loop. Returns when the input ends or the user types /exit. */
export async function runChat(session: ChatSession): Promise<void> {
  const { agent, profileId, write } = session;
  const turnOptions = { profileId, ...(session.engine ? { engine: session.engine } : {}) };
  const history: ModelMessage[] = [];
  let chips: Chip[] = [];
  const ask = async (prompt: string): Promise<string | undefined> => {
    write(prompt);
    const next = await session.lines.next();
    return next.done ? undefined : next.value;
  };

  for (;;) {
    const line = await ask('you> ');
    if (line === undefined) {
      write('\n');
      break;
    }
    const text = line.trim();
    if (text === '') continue;
    if (text === '/exit' || text === '/quit') break;
    if (text.startsWith('/mode')) {
      const mode = text.slice('/mode'.length).trim();
      if (!isPermissionMode(mode) || !session.setMode) {
        write(
          `  Usage: /mode ${PERMISSION_MODES.join('|')} (now ${PERMISSION_MODE_LABELS[await session.mode()]})\n`,
        );
      } else {
        await session.setMode(mode);
        write(`  Permission mode: ${PERMISSION_MODE_LABELS[mode]}\n`);
      }
      continue;
    }
    const choice = /^\d+$/.test(text) ? chips[Number(text) - 1] : undefined;
    if (/^\d+$/.test(text) && chips.length > 0) {
      if (!choice) {
        write(`  There is no proposal ${text}; choose 1 to ${chips.length}.\n`);
        continue;
      }
      try {
        const output = await agent.acceptChip(choice, { profileId });
        write(`  ✓ ${choice.label}: ${json(output)}\n`);
      } catch (error) {
        write(`  ✗ ${choice.label}: ${(error as Error).message}\n`);
      }
      chips = [];
      continue;
    }

    history.push({ role: 'user', content: text });
    chips = [];
    let usage: TurnUsage = { inputTokens: undefined, outputTokens: undefined, cachedInputTokens: undefined };
    for (;;) {
      const result = await agent.runTurn(history, turnOptions);
      history.push(...result.messages);
      usage = addUsage(usage, result.usage);
      for (const call of result.toolResults) {
        const chip = chipOf(call.output);
        if (chip) chips.push(chip);
        write(
          `  · ${call.toolName} ${json(call.input)} → ${chip ? `proposal: ${chip.label}` : json(call.output)}\n`,
        );
      }
      for (const call of result.toolErrors)
        write(`  ✗ ${call.toolName} ${json(call.input)}: ${clip(call.error, 200)}\n`);
      if (result.text) write(`${result.text}\n`);
      if (result.approvals.length === 0) break;
      const answers: { approvalId: string; approved: boolean; reason?: string }[] = [];
      for (const approval of result.approvals) {
        write(`  ? ${describeCall(approval.toolName, approval.input)}\n`);
        if (approval.reason) write(`    ${approval.reason}\n`);
        const reply = (await ask('    Allow? [y/N] '))?.trim().toLowerCase();
        const approved = reply === 'y' || reply === 'yes';
        answers.push(
          approved
            ? { approvalId: approval.approvalId, approved }
            : { approvalId: approval.approvalId, approved, reason: 'The user said no at the prompt.' },
        );
      }
      history.push(approvalResponse(answers));
    }
    if (chips.length > 0) {
      write('  Proposals (type a number to accept):\n');
      chips.forEach((chip, index) => {
        write(`    [${index + 1}] ${chip.label}\n`);
      });
    }
    write(
      `  (tokens: ${count(usage.inputTokens)} in, ${count(usage.cachedInputTokens)} cached, ${count(usage.outputTokens)} out)\n`,
    );
  }
}

export const chatCommand: Command = {
  usage: USAGE,
  async run(args, io) {
    let values: { profile?: string; mode?: string };
    try {
      values = parseArgs({
        args,
        options: { profile: { type: 'string' }, mode: { type: 'string' } },
        allowPositionals: false,
      }).values;
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    if (values.mode !== undefined && !isPermissionMode(values.mode)) {
      throw new UsageError(`--mode must be one of ${PERMISSION_MODES.join(', ')}, not '${values.mode}'.`);
    }
    const { model, label } = await modelForCommand(io, values.profile);
    const toolrow = await openToolrowWaiting(io);
    const { state } = toolrow;
    try {
      const profileId = values.profile ?? io.env.TOOLROW_PROFILE ?? toolrow.connection.profile;
      await state.profiles.ensure(profileId);
      if (values.mode) await state.profiles.setMode(profileId, values.mode as PermissionMode);
      const agent = createAgent({ model, backend: toolsBackend(toolrow), store: appStateGateStore(state) });
      const mode = async () => (await state.profiles.ensure(profileId)).mode;
      io.stdout(
        `Toolrow chat · ${label} · ${toolrow.source.description} · profile ${profileId} (${PERMISSION_MODE_LABELS[await mode()]} mode)\n` +
          'Type /exit to leave, /mode <manual|auto|full-auto> to switch mode.\n',
      );
      await runChat({
        agent,
        profileId,
        engine: toolrow.source,
        lines: lineReader(process.stdin),
        write: io.stdout,
        mode,
        setMode: async (next) => {
          await state.profiles.setMode(profileId, next);
        },
      });
      return 0;
    } finally {
      await toolrow.close();
    }
  },
};
