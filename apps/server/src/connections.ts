// The app's connections: list them (no passwords), add one (tested before it is saved), and switch
// the active one without a restart. Switching also makes it the default of the CLI and the next start.

import { isDataSourceError } from '@toolrow/datasource';
import type {
  ConnectionFound,
  ConnectionList,
  ConnectionSummary,
  PermissionMode,
} from '@toolrow/desktop/wire';
import { installedEngines } from '@toolrow/engines';
import {
  addConnection,
  type ConnectionHub,
  type ConnectionInfo,
  PERMISSION_MODES,
  type Toolrow,
  UNNAMED_CONNECTION,
  unknownConnection,
} from '@toolrow/state';
import type { Hono } from 'hono';
import { z } from 'zod';
import { readBody } from './body.ts';
import { HttpError } from './errors.ts';
import type { RequestConnection, ServerEnv } from './request-connection.ts';

export interface ConnectionRoutesOptions {
  /** Null: the app was started on one connection and cannot switch. */
  hub: ConnectionHub | null;
  activate: (toolrow: Toolrow) => Promise<void>;
  env: Readonly<Record<string, string | undefined>>;
  cwd?: string;
}

/** The driver the unnamed connection opens on: the one DATABASE_URL names, else the default engine's embedded one. */
function unnamedDriver(url: string | undefined, cwd = process.cwd()): string {
  if (url === undefined) {
    const { drivers } = installedEngines.fallback;
    return (drivers.find((driver) => driver.embedded) ?? drivers[0])!.id;
  }
  try {
    return installedEngines.parseUrl(url, { cwd, field: 'DATABASE_URL' }).driver;
  } catch {
    return 'unknown';
  }
}

export function mountConnectionRoutes(app: Hono<ServerEnv>, options: ConnectionRoutesOptions): void {
  const { hub } = options;

  async function list({ source, state, profile }: RequestConnection): Promise<ConnectionList> {
    const [connections, profiles] = await Promise.all([state.connections.list(), state.profiles.list()]);
    const modeOf = (name: string): PermissionMode =>
      profiles.find((each) => each.name === name)?.mode ?? 'manual';
    const summaries = connections.map((connection) => summary(connection, modeOf(connection.name)));
    if (!summaries.some((each) => each.name === UNNAMED_CONNECTION)) {
      summaries.unshift({
        name: UNNAMED_CONNECTION,
        // The driver it is open on when it is the one serving this request; else the one
        // DATABASE_URL names, else the default engine's embedded one.
        engine:
          profile === UNNAMED_CONNECTION
            ? source.driver
            : unnamedDriver(options.env.DATABASE_URL?.trim() || undefined, options.cwd),
        description: options.env.DATABASE_URL?.trim()
          ? 'DATABASE_URL'
          : `the embedded sample shop in ${state.dataDir}`,
        named: false,
        mode: modeOf(UNNAMED_CONNECTION),
        mcp: null,
        active: false,
      });
    }
    return {
      active: profile,
      canSwitch: hub !== null,
      connections: summaries,
      // How each installed engine's URLs are written, for the add form's hint.
      urlForms: installedEngines.engines.map((engine) => ({ engine: engine.label, forms: engine.urlForms })),
    };
  }

  app.get('/api/connections', async (c) => c.json(await list(c.var.connection)));

  app.post('/api/connections', async (c) => {
    const body = await readBody(
      c,
      z.strictObject({
        name: z.string().trim().min(1, 'name: give the connection a name, such as staging'),
        url: z.string().trim().min(1, 'url: give its URL, such as postgres://user@host:5432/db'),
        password: z.string().optional(),
        mode: z.enum(PERMISSION_MODES).optional(),
      }),
    );
    const { state } = c.var.connection;
    try {
      const added = await addConnection(
        state,
        {
          name: body.name,
          url: body.url,
          ...(body.password ? { password: body.password } : {}),
          ...(body.mode ? { mode: body.mode } : {}),
        },
        { env: options.env, ...(options.cwd ? { cwd: options.cwd } : {}) },
      );
      const saved = (await list(c.var.connection)).connections.find((each) => each.name === added.name);
      const result: ConnectionFound = {
        connection: saved!,
        found: added.found!,
      };
      return c.json(result, 201);
    } catch (error) {
      // What the user typed is wrong (a name, a URL, a host or a password): a 400 naming the field.
      if (isDataSourceError(error) && ['config', 'misuse', 'connection'].includes(error.code)) {
        throw new HttpError(400, 'invalid-connection', error.message);
      }
      throw error;
    }
  });

  app.put('/api/connections/active', async (c) => {
    const { name } = await readBody(c, z.strictObject({ name: z.string().trim().min(1) }));
    const { state, profile } = c.var.connection;
    if (name === profile) return c.json({ active: name });
    if (!hub) {
      throw new HttpError(
        409,
        'cannot-switch',
        `This app was started on the connection '${profile}' alone and cannot switch.`,
        `Restart it on the other one: toolrow --connection ${name} serve, or toolrow connections use ${name} and npm start.`,
      );
    }
    if (name !== UNNAMED_CONNECTION && !(await state.connections.get(name))) {
      const names = (await state.connections.list()).filter((each) => each.named).map((each) => each.name);
      throw unknownConnection(name, names);
    }
    let toolrow: Toolrow;
    try {
      toolrow = await hub.open(name);
    } catch (error) {
      throw new HttpError(
        503,
        'connection',
        `Could not open the connection '${name}': ${(error as Error).message}`,
        `Check it with toolrow connections test ${name}; the app stays on '${profile}'.`,
      );
    }
    await options.activate(toolrow);
    await toolrow.state.connections.setDefault(name === UNNAMED_CONNECTION ? undefined : name);
    return c.json({ active: name });
  });
}

function summary(connection: ConnectionInfo, mode: PermissionMode): ConnectionSummary {
  return {
    name: connection.name,
    engine: connection.engine,
    // A named one shows its URL (stored without a password); the unnamed one its description.
    description: connection.url ?? connection.description,
    named: connection.named ?? false,
    mode,
    mcp: connection.mcpScope ?? null,
    active: connection.active,
  };
}
