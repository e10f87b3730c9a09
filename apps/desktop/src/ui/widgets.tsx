import { isToolName, rowOf } from '@toolrow/catalog';
import type { ReactNode } from 'react';
import { ApiError } from './api.ts';
import { formatAgo, formatTimestamp } from './format.ts';

/** A readable error: what went wrong, and (when the server said) how to fix it. */
export function ErrorBox({ error }: { error: unknown }) {
  const message = error instanceof Error ? error.message : String(error);
  const hint = error instanceof ApiError ? error.hint : undefined;
  return (
    <div className="error-box" role="alert">
      {message}
      {hint ? <div className="hint">{hint}</div> : null}
    </div>
  );
}

/** A recent moment as "5 min ago", with the full timestamp on hover. */
export function When({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={formatTimestamp(iso)}>
      {formatAgo(iso)}
    </time>
  );
}

export function ProgressBar({ done, total, label }: { done: number; total: number | null; label: string }) {
  const known = total !== null && total > 0;
  const percent = known ? Math.min(100, Math.round((done / total) * 100)) : 0;
  return (
    <div
      className={`progress${known ? '' : ' indeterminate'}`}
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={known ? 100 : undefined}
      aria-valuenow={known ? percent : undefined}
    >
      <div style={known ? { width: `${percent}%` } : undefined} />
    </div>
  );
}

/**
 * Tier, access and visibility of a tool, read from its row: these badges are why the browser
 * bundle carries the declarations (nothing here names a tool).
 */
export function ToolBadges({ name, visibility = false }: { name: string; visibility?: boolean }) {
  if (!isToolName(name)) return <span className="badge danger">unknown tool</span>;
  const row = rowOf(name);
  return (
    <>
      <span className={`badge ${row.tier}`} title={TIER_HINT[row.tier]}>
        {row.tier}
        {row.access ? ` · ${row.access}` : ''}
      </span>
      {visibility ? (
        <span className="badge" title={VISIBILITY_HINT[row.visibility]}>
          {row.visibility}
        </span>
      ) : null}
    </>
  );
}

const TIER_HINT: Record<string, string> = {
  silent: 'Silent: reads local metadata or app state; runs without asking.',
  gated: 'Gated: acts on the world or costs something; goes through your permission mode.',
  loop: 'Part of the agent loop itself.',
};

const VISIBILITY_HINT: Record<string, string> = {
  inline: 'Inline: the model sees it from the first step.',
  discoverable: 'Discoverable: the model finds it with searchTools.',
};

export interface Toast {
  id: number;
  text: string;
  kind: 'info' | 'error';
}

export function Toasts({ toasts }: { toasts: Toast[] }) {
  return (
    <div className="toast-stack" aria-live="polite">
      {toasts.map((toast) => (
        <div
          key={toast.id}
          className={`toast ${toast.kind}`}
          role={toast.kind === 'error' ? 'alert' : 'status'}
        >
          {toast.text}
        </div>
      ))}
    </div>
  );
}

/** A form dialog over the app: its title, a Close button, and what it holds. */
export function FormDialog({
  label,
  title,
  onClose,
  children,
}: {
  /** The accessible name (getByRole('dialog', { name })). */
  label: string;
  title: string;
  onClose: () => void;
  children: ReactNode;
}) {
  return (
    <div className="overlay">
      <div className="dialog connection-dialog" role="dialog" aria-label={label}>
        <div className="toolbar">
          <span className="title">{title}</span>
          <span className="spacer" />
          <button type="button" className="btn small ghost" onClick={onClose}>
            Close
          </button>
        </div>
        {children}
      </div>
    </div>
  );
}
