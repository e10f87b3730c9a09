// MCP clients connected through OAuth (each one a consent the user gave on the consent page):
// who, what scope, which profile, until when, last use; Disconnect ends every token of it at once.
import { useCallback, useEffect, useState } from 'react';
import { api, type McpClient } from './api.ts';
import { formatTimestamp } from './format.ts';
import { ErrorBox, When } from './widgets.tsx';

const when = (iso: string | null) => (iso ? formatTimestamp(iso) : '—');

export function McpClientsPanel({ onError }: { onError: (error: unknown) => void }) {
  const [clients, setClients] = useState<McpClient[] | null>(null);
  const [error, setError] = useState<unknown>(null);

  const load = useCallback(() => {
    api
      .mcpClients()
      .then((result) => {
        setClients(result.clients);
        setError(null);
      })
      .catch(setError);
  }, []);
  useEffect(load, [load]);

  const disconnect = (id: string) => {
    api.revokeMcpClient(id).catch(onError).finally(load);
  };

  return (
    <div className="view">
      <div className="toolbar">
        <span className="title">MCP clients</span>
        <span className="muted">connected through OAuth: each one you approved on the consent page</span>
        <span className="spacer" />
        <button type="button" className="btn small" onClick={load}>
          Refresh
        </button>
      </div>
      {error ? <ErrorBox error={error} /> : null}
      {clients === null && !error ? <div className="empty">Loading…</div> : null}
      {clients && clients.length === 0 ? (
        <div className="empty">
          <h2>No MCP clients connected</h2>
          <p>
            Add this app's <code>/mcp</code> URL to an MCP client (Claude Desktop, VS Code, Cursor…): it opens
            a consent page here where you choose what it may do. Headless clients use{' '}
            <code>toolrow mcp token create</code>.
          </p>
        </div>
      ) : null}
      {clients && clients.length > 0 ? (
        <div className="list" style={{ padding: 0 }}>
          <table className="dtable compact">
            <thead>
              <tr>
                <th title="The client's name, and the name it has in the audit log">Client</th>
                <th>Scope</th>
                <th>Profile</th>
                <th>Connected</th>
                <th>Expires</th>
                <th>Last use</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {clients.map((client) => (
                <tr key={client.id} data-testid="mcp-client">
                  <td>
                    <div data-testid="mcp-client-name">{client.clientName}</div>
                    <div className="mono faint">{client.actor}</div>
                  </td>
                  <td>
                    <span className="badge">{client.scope}</span>
                  </td>
                  <td className="muted">{client.profile}</td>
                  <td className="muted" data-testid="mcp-client-connected">
                    {client.status === 'not finished' ? (
                      <span title="Consent was given, but the client never came back for its tokens">
                        not finished
                      </span>
                    ) : (
                      <When iso={client.createdAt} />
                    )}
                  </td>
                  <td className="muted">{client.expiresAt ? when(client.expiresAt) : 'when disconnected'}</td>
                  <td className="muted" data-testid="mcp-client-last-use">
                    {client.lastUsedAt ? <When iso={client.lastUsedAt} /> : '—'}
                  </td>
                  <td className="actions">
                    <button type="button" className="btn small" onClick={() => disconnect(client.id)}>
                      Disconnect
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </div>
  );
}
