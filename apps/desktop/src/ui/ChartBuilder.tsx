// The workbench's Chart button: the person picks the mark, x, y and colour from the result's
// columns, without a model. The chart is drawn by the same tool the agent calls (drawChart, run
// as the user through the app), so the read, its bounds and every refusal are the same.
import { useState } from 'react';
import { api } from './api.ts';
import { ChartCard, type ChartDisplay, chartOf } from './ChartCard.tsx';
import { ErrorBox } from './widgets.tsx';

const MARKS = ['bar', 'line', 'point', 'area', 'arc'] as const;
type Mark = (typeof MARKS)[number];
const AGGREGATES = ['', 'sum', 'mean', 'count', 'min', 'max'] as const;

export interface ChartBuilderProps {
  sql: string;
  columns: readonly string[];
}

/** The compact spec the picks make: what a model would send, nothing more. */
export function specOfPicks(picks: {
  mark: Mark;
  x: string;
  y: string;
  color: string;
  aggregate: (typeof AGGREGATES)[number];
}): Record<string, unknown> {
  const y = { field: picks.y, ...(picks.aggregate ? { aggregate: picks.aggregate } : {}) };
  // An arc is a pie: its angle is the value, its colour the category.
  if (picks.mark === 'arc') return { mark: 'arc', encoding: { theta: y, color: { field: picks.x } } };
  return {
    mark: picks.mark,
    encoding: { x: { field: picks.x }, y, ...(picks.color ? { color: { field: picks.color } } : {}) },
  };
}

export function ChartBuilder({ sql, columns }: ChartBuilderProps) {
  const [mark, setMark] = useState<Mark>('bar');
  const [x, setX] = useState(columns[0] ?? '');
  const [y, setY] = useState(columns[1] ?? columns[0] ?? '');
  const [color, setColor] = useState('');
  const [aggregate, setAggregate] = useState<(typeof AGGREGATES)[number]>('');
  const [chart, setChart] = useState<ReturnType<typeof chartOf>>(null);
  const [error, setError] = useState<unknown>(null);
  const [drawing, setDrawing] = useState(false);

  const draw = async () => {
    setDrawing(true);
    setError(null);
    try {
      const { output } = await api.callTool('drawChart', {
        sql,
        spec: specOfPicks({ mark, x, y, color, aggregate }),
      });
      setChart(chartOf(output));
    } catch (cause) {
      setChart(null);
      setError(cause);
    } finally {
      setDrawing(false);
    }
  };

  const select = (
    label: string,
    value: string,
    onChange: (value: string) => void,
    options: readonly string[],
  ) => (
    <label>
      {label}{' '}
      <select aria-label={label} value={value} onChange={(event) => onChange(event.target.value)}>
        {options.map((option) => (
          <option key={option} value={option}>
            {option === '' ? '—' : option}
          </option>
        ))}
      </select>
    </label>
  );

  return (
    <div className="workbench-chart" data-testid="chart-builder">
      <div className="chart-builder toolbar">
        {select('Mark', mark, (value) => setMark(value as Mark), MARKS)}
        {select(mark === 'arc' ? 'Category' : 'X', x, setX, columns)}
        {select(mark === 'arc' ? 'Angle' : 'Y', y, setY, columns)}
        {select(
          'Aggregate',
          aggregate,
          (value) => setAggregate(value as (typeof AGGREGATES)[number]),
          AGGREGATES,
        )}
        {mark === 'arc' ? null : select('Colour', color, setColor, ['', ...columns])}
        <button
          type="button"
          className="btn primary small"
          disabled={drawing || !x || !y}
          onClick={() => void draw()}
        >
          {drawing ? 'Drawing…' : 'Draw'}
        </button>
      </div>
      {error ? <ErrorBox error={error} /> : null}
      {chart ? (
        <ChartCard
          {...chart}
          display={chart.display as ChartDisplay}
          onSave={(name, display) => api.saveChart(name, display.sql, display.chart)}
        />
      ) : null}
    </div>
  );
}
