// Which connection a request acts on, decided in one place. A request that names its connection
// (the CLI through the app, `toolrow mcp --stdio` forwarded here) is served on exactly that one,
// opened beside the others on first use; a request that names none (the desktop) acts on the
// connection active in the app's header. No route picks a connection of its own.
import type { DataSource } from '@toolrow/datasource';
import type { TeamRole } from '@toolrow/state';
import {
  type ConnectionHub,
  type Toolrow,
  type ToolrowState,
  UNNAMED_CONNECTION,
  unknownConnection,
} from '@toolrow/state';
import type { MiddlewareHandler } from 'hono';
import { CONNECTION_HEADER } from './app-file.ts';
import { HttpError } from './errors.ts';

/** What a route works on: one connection's data, its state and its profile (the connection's name). */
export interface RequestConnection {
  readonly source: DataSource;
  readonly state: ToolrowState;
  /** The connection's name, which is also the profile of its mode, tabs and audit entries. */
  readonly profile: string;
  /** Team mode: the signed-in person acting on it (their email). */
  readonly person?: string;
}

/** Team mode: the signed-in person a request acts for (by their session, or a personal token). */
export interface TeamMember {
  email: string;
  name: string;
  role: TeamRole;
  /** A browser's session (changes carry its CSRF token) or a personal token (the CLI's). */
  via: 'session' | 'token';
  csrf?: string;
}

/** Hono's environment of the app's routes: `c.var.connection` is the request's connection. */
export interface ServerEnv {
  Variables: { connection: RequestConnection; member?: TeamMember };
}

export interface AppConnections {
  /** The connection active in the app's header now. */
  active(): RequestConnection;
  /** Makes an open connection the active one. */
  activate(toolrow: Toolrow): Promise<void>;
  /** The connection of this name (undefined: the active one); a name the app cannot serve is refused. */
  resolve(name: string | undefined): Promise<RequestConnection>;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function createAppConnections(
  first: RequestConnection,
  hub: ConnectionHub | null,
  onActivate: () => Promise<void>,
): AppConnections {
  let active = first;
  return {
    active: () => active,
    async activate(toolrow) {
      await toolrow.state.profiles.ensure(toolrow.connection.profile);
      active = { source: toolrow.source, state: toolrow.state, profile: toolrow.connection.profile };
      await onActivate();
    },
    async resolve(name) {
      if (name === undefined || name === active.profile) return active;
      if (!NAME.test(name)) {
        throw new HttpError(
          400,
          'bad-connection',
          `'${name.slice(0, 80)}' is not a connection name (${CONNECTION_HEADER}).`,
          'Connection names are 1-64 letters, digits, dots, dashes or underscores; toolrow connections list shows them.',
        );
      }
      const { state } = active;
      if (name !== UNNAMED_CONNECTION && !(await state.connections.get(name))) {
        const names = (await state.connections.list()).filter((each) => each.named).map((each) => each.name);
        throw unknownConnection(name, names);
      }
      if (!hub) {
        throw new HttpError(
          409,
          'cannot-serve-connection',
          `This app serves the connection '${active.profile}' alone, so it cannot act on '${name}': nothing was read or changed.`,
          `Stop the app and run the command again (it then opens '${name}' itself), or start the app with the connection switcher (npm start).`,
        );
      }
      let toolrow: Toolrow;
      try {
        toolrow = await hub.open(name);
      } catch (error) {
        throw new HttpError(
          503,
          'connection',
          `Could not open the connection '${name}': ${(error as Error).message}`,
          `Check it with toolrow connections test ${name}. Nothing was read or changed.`,
        );
      }
      await toolrow.state.profiles.ensure(toolrow.connection.profile);
      return { source: toolrow.source, state: toolrow.state, profile: toolrow.connection.profile };
    },
  };
}

/** Sets `c.var.connection` for every request: the one its header names, else the active one. */
export function connectionMiddleware(connections: AppConnections): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    const named = c.req.header(CONNECTION_HEADER);
    const connection = await connections.resolve(named === undefined ? undefined : named.trim());
    const member = c.get('member');
    // Everything done on it in team mode is the person's: what they stage, run and decide.
    c.set('connection', member ? { ...connection, person: member.email } : connection);
    await next();
  };
}
