// The model a CLI command talks to: the one saved in the app's Settings for the profile, else
// TOOLROW_MODEL (the same rule as the app). Only Toolrow's own store is opened (milliseconds, and
// it works beside a running app).
import { ModelConfigError, type ProfileModel, resolveProfileModel } from '@toolrow/agent';
import { DEFAULT_PROFILE, openAppState } from '@toolrow/state';
import type { CommandIo } from './command.ts';

export async function modelForCommand(
  io: CommandIo,
  profile?: string,
): Promise<ProfileModel & { profile: string }> {
  const state = await openAppState({ env: io.env, cwd: io.cwd });
  try {
    const at =
      profile ??
      (io.env.TOOLROW_PROFILE?.trim() ||
        io.env.TOOLROW_CONNECTION?.trim() ||
        (await state.connections.defaultName()) ||
        DEFAULT_PROFILE);
    const resolved = await resolveProfileModel({ state, dataDir: state.dataDir, profile: at, env: io.env });
    if (!resolved) {
      throw new ModelConfigError(
        `No model is set for profile ${at}. Pick one in the app (click the model in the status bar), or set TOOLROW_MODEL, for example TOOLROW_MODEL=openai-compatible:http://127.0.0.1:11434/v1#qwen3:8b.`,
      );
    }
    return { ...resolved, profile: at };
  } finally {
    await state.close();
  }
}
