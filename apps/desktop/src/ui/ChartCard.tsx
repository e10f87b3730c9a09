// A chart drawn in the app: Vega-Lite compiled here, drawn by Vega's SVG renderer with a loader
// that refuses every load (the server checked the spec; this holds alone). PNG and SVG downloads
// come from the same view.
import { refusingLoader } from '@toolrow/charts/loader';
import type { TableRead } from '@toolrow/datasource';
import { useEffect, useRef, useState } from 'react';
import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { readBadgeText } from './format.ts';
import { ErrorBox } from './widgets.tsx';

/** What drawChart's output carries for the surfaces. */
export interface ChartDisplay {
  kind: 'chart';
  sql: string;
  /** The spec as written, without data: what a saved chart keeps. */
  chart: Record<string, unknown>;
  /** The spec with the read's rows bound: what is drawn. */
  spec: Record<string, unknown>;
}

/** The chart a tool output carries, if it has one (drawChart's `display`). */
export function chartOf(
  output: unknown,
): { display: ChartDisplay; summary?: string; reads?: TableRead[] } | null {
  if (typeof output !== 'object' || output === null) return null;
  const { display, summary, reads } = output as {
    display?: Partial<ChartDisplay>;
    summary?: unknown;
    reads?: unknown;
  };
  if (display?.kind !== 'chart' || typeof display.spec !== 'object' || typeof display.sql !== 'string')
    return null;
  return {
    display: display as ChartDisplay,
    ...(typeof summary === 'string' ? { summary } : {}),
    ...(Array.isArray(reads) ? { reads: reads as TableRead[] } : {}),
  };
}

function download(href: string, name: string): void {
  const link = document.createElement('a');
  link.href = href;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
}

export interface ChartCardProps {
  display: ChartDisplay;
  summary?: string;
  reads?: TableRead[];
  /** Opens the chart's read in the workbench (absent where the card is the workbench's). */
  onOpenSql?: (sql: string) => void;
  /** Saves the chart with the saved specs under a name (absent where saving is not offered). */
  onSave?: (name: string, display: ChartDisplay) => Promise<unknown>;
}

export function ChartCard({ display, summary, reads, onOpenSql, onSave }: ChartCardProps) {
  const container = useRef<HTMLDivElement>(null);
  const [view, setView] = useState<View | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [saving, setSaving] = useState<'closed' | 'open' | 'saved'>('closed');
  const [name, setName] = useState('');

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    let live: View | undefined;
    // One view fills the card's width, its text at reading size; layered and faceted ones keep theirs.
    const single = display.spec.layer === undefined && display.spec.facet === undefined;
    const spec = single
      ? { ...display.spec, width: 'container', height: 260, autosize: { type: 'fit', contains: 'padding' } }
      : display.spec;
    try {
      live = new View(parse(compile(spec as unknown as TopLevelSpec).spec), {
        renderer: 'svg',
        container: element,
        hover: true,
        // biome-ignore lint/suspicious/noExplicitAny: Vega's Loader type wants its own class; ours only refuses.
        loader: refusingLoader() as any,
      });
      live
        .runAsync()
        .then(() => setView(live ?? null))
        .catch(setError);
    } catch (cause) {
      setError(cause);
    }
    return () => {
      live?.finalize();
      setView(null);
    };
  }, [display.spec]);

  const title = typeof display.spec.title === 'string' ? display.spec.title : 'chart';
  const fileName = title.replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-|-$/g, '') || 'chart';

  return (
    <figure className="chart-card" data-testid="chart-card">
      <div className="chart-canvas" ref={container} data-testid="chart-canvas" />
      {error ? <ErrorBox error={error} /> : null}
      {onSave && saving === 'open' ? (
        <form
          className="chart-save"
          onSubmit={(event) => {
            event.preventDefault();
            setError(null);
            onSave(name.trim(), display)
              .then(() => setSaving('saved'))
              .catch(setError);
          }}
        >
          <input
            aria-label="Chart name"
            placeholder="orders per status"
            value={name}
            onChange={(event) => setName(event.target.value)}
          />
          <button type="submit" className="btn small primary" disabled={!name.trim()}>
            Save chart
          </button>
          <button type="button" className="btn small" onClick={() => setSaving('closed')}>
            Cancel
          </button>
        </form>
      ) : null}
      <figcaption>
        {summary ? <span className="muted">{summary}</span> : null}
        {(reads ?? []).map((read) => (
          <span
            key={`${read.table}-${read.operation}-${read.index ?? ''}`}
            className={`badge ${read.operation === 'Scan' ? 'gated' : 'silent'}`}
            data-testid="chart-read"
          >
            {readBadgeText(read)}
          </span>
        ))}
        <span className="spacer" />
        {onOpenSql ? (
          <button type="button" className="btn small" onClick={() => onOpenSql(display.sql)}>
            Open the query
          </button>
        ) : null}
        {onSave && saving !== 'open' ? (
          <button type="button" className="btn small" onClick={() => setSaving('open')}>
            {saving === 'saved' ? `Saved as ${name}` : 'Save'}
          </button>
        ) : null}
        <button
          type="button"
          className="btn small"
          disabled={!view}
          onClick={() =>
            void view?.toSVG().then((svg) => {
              const url = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
              download(url, `${fileName}.svg`);
              setTimeout(() => URL.revokeObjectURL(url), 10_000);
            })
          }
        >
          SVG
        </button>
        <button
          type="button"
          className="btn small"
          disabled={!view}
          onClick={() => void view?.toImageURL('png', 2).then((url) => download(url, `${fileName}.png`))}
        >
          PNG
        </button>
      </figcaption>
      <details className="chart-sql">
        <summary>The read</summary>
        <pre>{display.sql}</pre>
      </details>
    </figure>
  );
}
