// Asks the provider about each signed-in person in turn, so a person removed there (or moved out
// of their group) loses their sessions, personal tokens, MCP tokens and OAuth grants within a
// minute. Every instance runs it; a person is taken by one instance at a time (team_people.checked_at).
import type { ToolrowState } from '@toolrow/state';
import type { TeamConfig } from './config.ts';
import type { TeamSignIn } from './sign-in.ts';

export interface PeopleCheck {
  /** Checks everyone due now (the timer does it every half interval). */
  run(): Promise<void>;
  stop(): void;
}

export function startPeopleCheck(
  config: TeamConfig,
  signIn: TeamSignIn,
  state: () => ToolrowState,
  log: (message: string) => void,
): PeopleCheck {
  let running: Promise<void> | undefined;
  async function checkDue(): Promise<void> {
    const team = state().team;
    for (const person of await team.takeDue(new Date(Date.now() - config.recheckMs))) {
      try {
        const found = await signIn.recheck(person);
        if ('gone' in found) {
          await team.remove(person.email, found.gone);
          log(`toolrow team: ${person.email} removed: ${found.gone}; their sessions and tokens ended.`);
        } else if (found.view.role !== person.role) {
          // A role given or taken is taken up at the next sign-in: until then, nothing acts with the old one.
          await team.remove(person.email, `role changed from ${person.role} to ${found.view.role}`);
          log(
            `toolrow team: ${person.email} is ${found.view.role} now (was ${person.role}); their sessions and tokens ended until they sign in again.`,
          );
        } else {
          await team.checked(person.email, found.view);
        }
      } catch (error) {
        // The provider could not be asked: nothing is decided; the next round asks again.
        log(
          `toolrow team: could not check ${person.email} with the identity provider: ${(error as Error).message}`,
        );
      }
    }
  }
  const run = () => {
    running ??= checkDue().finally(() => {
      running = undefined;
    });
    return running;
  };
  const timer = setInterval(() => void run().catch(() => {}), config.recheckMs / 2);
  timer.unref();
  return { run, stop: () => clearInterval(timer) };
}
