// The header's connection switcher and the Add connection form (tested by the server before it saves).
import { useCallback, useEffect, useState } from 'react';
import {
  api,
  type ConnectionFound,
  type ConnectionList,
  PERMISSION_MODES,
  type PermissionMode,
} from './api.ts';
import { allowed } from './permissions.ts';
import { FormDialog } from './widgets.tsx';

const ADD = '__add__';

/**
 * A switch reloads the page: every panel (tables, tabs, staging, exports, history, chat) then reads
 * the new connection's, with nothing of the old one left in memory.
 */
export function ConnectionSwitcher({
  active,
  onError,
}: {
  active: string | undefined;
  onError: (error: unknown) => void;
}) {
  const [list, setList] = useState<ConnectionList | null>(null);
  const [adding, setAdding] = useState(false);
  const [switching, setSwitching] = useState(false);
  const load = useCallback(() => {
    api.connections().then(setList).catch(onError);
  }, [onError]);
  useEffect(load, [load]);

  const switchTo = (name: string) => {
    setSwitching(true);
    api
      .switchConnection(name)
      .then(() => window.location.reload())
      .catch((error) => {
        setSwitching(false);
        onError(error);
      });
  };

  const current = list?.active ?? active ?? '';
  return (
    <>
      <select
        className="connection-switcher"
        aria-label="Connection"
        title="The connection the app works on: tables, tabs, staging, exports and history are its own"
        value={current}
        disabled={!list || switching}
        onChange={(event) => {
          const value = event.target.value;
          if (value === ADD) setAdding(true);
          else if (value !== current) switchTo(value);
        }}
      >
        {(list?.connections ?? (current ? [{ name: current, engine: '', description: '' }] : [])).map(
          (connection) => (
            <option key={connection.name} value={connection.name}>
              {connection.name}
              {connection.engine ? ` · ${connection.engine}` : ''}
            </option>
          ),
        )}
        {list?.canSwitch && allowed('connections').ok ? <option value={ADD}>Add connection…</option> : null}
      </select>
      {adding ? (
        <AddConnectionDialog
          urlForms={list?.urlForms ?? []}
          onClose={() => setAdding(false)}
          onAdded={() => load()}
          onSwitch={(name) => {
            setAdding(false);
            switchTo(name);
          }}
        />
      ) : null}
    </>
  );
}

function AddConnectionDialog({
  urlForms,
  onClose,
  onAdded,
  onSwitch,
}: {
  urlForms: ConnectionList['urlForms'];
  onClose: () => void;
  onAdded: () => void;
  onSwitch: (name: string) => void;
}) {
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [password, setPassword] = useState('');
  const [mode, setMode] = useState<PermissionMode>('manual');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, setSaved] = useState<ConnectionFound | null>(null);

  const submit = () => {
    setBusy(true);
    setProblem(null);
    api
      .addConnection({ name, url, ...(password ? { password } : {}), mode })
      .then((result) => {
        setSaved(result);
        onAdded();
      })
      .catch((error) => setProblem(error instanceof Error ? error.message : String(error)))
      .finally(() => setBusy(false));
  };

  return (
    <FormDialog label="Add connection" title="Add connection" onClose={onClose}>
      {saved ? (
        <div className="connection-saved" data-testid="connection-saved">
          <p>
            Saved <strong>{saved.connection.name}</strong> ({saved.connection.description}):{' '}
            {saved.found.tables} table{saved.found.tables === 1 ? '' : 's'}.
          </p>
          <ul>
            {saved.found.readLayers.map((layer) => (
              <li key={layer.layer}>
                {layer.active ? '✓' : '–'} {layer.layer}: {layer.detail}
              </li>
            ))}
          </ul>
          {saved.found.notes.map((note) => (
            <p key={note} className="connection-note" data-testid="connection-note">
              {note}
            </p>
          ))}
          <div className="actions">
            <button type="button" className="btn primary" onClick={() => onSwitch(saved.connection.name)}>
              Switch to {saved.connection.name}
            </button>
            <button type="button" className="btn" onClick={onClose}>
              Stay here
            </button>
          </div>
        </div>
      ) : (
        <form
          className="connection-form"
          onSubmit={(event) => {
            event.preventDefault();
            submit();
          }}
        >
          <label>
            Name
            <input value={name} onChange={(e) => setName(e.target.value)} placeholder="staging" required />
          </label>
          <label>
            URL
            <input
              value={url}
              onChange={(e) => setUrl(e.target.value)}
              placeholder={urlForms.map((each) => each.forms.split(' ')[0]).join(' or ')}
              aria-describedby="url-forms"
              required
            />
          </label>
          <ul id="url-forms" className="faint url-forms" data-testid="url-forms">
            {urlForms.map((each) => (
              <li key={each.engine}>
                {each.engine}: {each.forms}
              </li>
            ))}
          </ul>
          <label>
            Password
            <input
              type="password"
              autoComplete="off"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              placeholder="if the engine takes one: kept in a file only you can read"
            />
          </label>
          <label>
            Mode
            <select value={mode} onChange={(e) => setMode(e.target.value as PermissionMode)}>
              {PERMISSION_MODES.map((each) => (
                <option key={each.mode} value={each.mode}>
                  {each.label}
                </option>
              ))}
            </select>
          </label>
          {problem ? (
            <p className="form-error" role="alert">
              {problem}
            </p>
          ) : null}
          <div className="actions">
            <button type="submit" className="btn primary" disabled={busy}>
              {busy ? 'Testing…' : 'Test and save'}
            </button>
          </div>
        </form>
      )}
    </FormDialog>
  );
}
