// The MCP approval inbox: gated calls from MCP clients (Claude Desktop, an IDE agent, …) that the
// profile's mode asks about, waiting for the user. Polled, because an ask can arrive from another
// process (`toolrow mcp --stdio` beside the app) at any time.
import { describeCall } from '@toolrow/catalog';
import { useCallback, useEffect, useState } from 'react';
import { api, type McpApproval } from './api.ts';

const POLL_MS = 1000;

function remaining(expiresAt: string, now: number): string {
  const seconds = Math.max(0, Math.round((Date.parse(expiresAt) - now) / 1000));
  return seconds >= 60 ? `${Math.floor(seconds / 60)} min ${seconds % 60} s` : `${seconds} s`;
}

export function McpInbox({
  onError,
  onPending,
}: {
  onError: (error: unknown) => void;
  /** How many calls wait, whenever it changes (the status bar says it). */
  onPending?: (count: number) => void;
}) {
  const [pending, setPending] = useState<McpApproval[]>([]);
  const [reasons, setReasons] = useState<Record<string, string>>({});
  const [now, setNow] = useState(() => Date.now());

  const load = useCallback(() => {
    api
      .mcpApprovals()
      .then(({ pending: next }) => {
        setPending(next);
        setNow(Date.now());
      })
      .catch(() => {
        // The status bar reports an unreachable server; an inbox that cannot load just waits.
      });
  }, []);

  useEffect(() => {
    load();
    const timer = setInterval(load, POLL_MS);
    return () => clearInterval(timer);
  }, [load]);
  useEffect(() => onPending?.(pending.length), [pending.length, onPending]);

  const answer = (id: string, approved: boolean) => {
    const reason = reasons[id]?.trim();
    setPending((list) => list.filter((request) => request.id !== id));
    api
      .answerMcpApproval(id, approved, approved ? undefined : reason || undefined)
      .catch(onError)
      .finally(load);
  };

  if (pending.length === 0) return null;
  return (
    <section className="mcp-inbox" aria-label="MCP approvals" data-testid="mcp-inbox">
      <h2>
        MCP approvals <span className="faint">({pending.length} waiting)</span>
      </h2>
      {pending.map((request) => (
        <article key={request.id} className="approval" data-testid="mcp-approval">
          <div className="q">
            <strong data-testid="mcp-approval-client">{request.client}</strong> wants to run{' '}
            <code data-testid="mcp-approval-tool">{request.tool}</code>
          </div>
          <div className="faint">
            {request.reason}
            {request.tables && request.tables.length > 0 ? ` Tables: ${request.tables.join(', ')}.` : ''}{' '}
            Expires in {remaining(request.expiresAt, now)}.
          </div>
          <p className="approval-summary" data-testid="mcp-approval-summary">
            {describeCall(request.tool, request.input)}
          </p>
          <details>
            <summary>Input</summary>
            <pre data-testid="mcp-approval-input">{JSON.stringify(request.input, null, 2)}</pre>
          </details>
          <div className="actions">
            <button type="button" className="btn small primary" onClick={() => answer(request.id, true)}>
              Approve
            </button>
            <button type="button" className="btn small" onClick={() => answer(request.id, false)}>
              Deny
            </button>
            <input
              className="input small"
              placeholder="Reason (optional, the client reads it)"
              aria-label={`Reason for denying ${request.tool}`}
              value={reasons[request.id] ?? ''}
              onChange={(event) => setReasons((all) => ({ ...all, [request.id]: event.target.value }))}
            />
          </div>
        </article>
      ))}
    </section>
  );
}
