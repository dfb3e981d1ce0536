import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { weekLabel, weekRange, weekTicks } from './week-axis';

export interface Series {
  label: string;
  values: (number | null)[];
}

export interface ChartData {
  /** unique on the page: the chart's element ids and the CSV's file name */
  id: string;
  title: string;
  /** what a value means (the y axis) */
  unit: string;
  /** the end of each week (ISO date-time), ascending */
  dates: string[];
  series: Series[];
  /** the y axis' fixed top (e.g. 100 for a percentage); default: from the data */
  max?: number;
  /** a note under the title (e.g. which projects are shown) */
  note?: string;
}

const COLORS = [
  '#1f6feb',
  '#d1242f',
  '#1a7f37',
  '#9a6700',
  '#8250df',
  '#bf3989',
  '#0a7a8a',
  '#6e7781',
  '#953800',
  '#116329',
];

export const FIRST_CHART_MARK = 'flaglens:first-chart';

function day(iso: string): string {
  return iso.slice(0, 10);
}

function cell(v: number | null): string {
  return v === null ? '' : String(v);
}

/** The chart's numbers as CSV (RFC 4180 quoting): a `date` column, then one column per series. */
export function toCsv(c: ChartData): string {
  const q = (s: string) => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  const rows = [['date', ...c.series.map((s) => s.label)].map(q).join(',')];
  c.dates.forEach((d, i) =>
    rows.push([day(d), ...c.series.map((s) => cell(s.values[i] ?? null))].map(q).join(',')),
  );
  return rows.join('\r\n') + '\r\n';
}

function download(c: ChartData): void {
  const url = URL.createObjectURL(new Blob([toCsv(c)], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = `flaglens-${c.id}.csv`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** A uPlot line chart over weeks, with its numbers as a table on demand and a CSV download. */
export function Chart({ data }: { data: ChartData }) {
  const box = useRef<HTMLDivElement>(null);
  const [table, setTable] = useState(false);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const width = () => Math.max(280, el.clientWidth);
    const xs = data.dates.map((d) => Date.parse(d) / 1000);
    const opts: uPlot.Options = {
      width: width(),
      height: 240,
      // room right of the plot for half the newest week's label, which sits on the edge
      padding: [12, 40, 0, 0],
      scales: {
        // one week alone: a week either side, not uPlot's default span of years
        x: { time: true, range: (_u, min, max) => weekRange(xs, min, max) },
        ...(data.max !== undefined ? { y: { range: [0, data.max] as [number, number] } } : {}),
      },
      axes: [
        {
          // ticks on the weeks themselves (week-axis.ts), not uPlot's hours and days between them
          splits: (u) => weekTicks(xs, u.bbox.width / devicePixelRatio),
          values: (_u, splits) => {
            const labels = splits.map(weekLabel);
            el.dataset.ticks = labels.join(' ');
            return labels;
          },
        },
        { label: data.unit, size: 60 },
      ],
      series: [
        {
          label: 'week',
          value: (_u, v) => (v === null ? '–' : weekLabel(v)),
        },
        ...data.series.map((s, i) => ({
          label: s.label,
          stroke: COLORS[i % COLORS.length],
          width: 2,
          spanGaps: false,
        })),
      ],
      legend: { live: true },
      hooks: {
        draw: [
          () => {
            if (performance.getEntriesByName(FIRST_CHART_MARK).length === 0)
              performance.mark(FIRST_CHART_MARK);
          },
        ],
      },
    };
    const plot = new uPlot(opts, [xs, ...data.series.map((s) => s.values)] as uPlot.AlignedData, el);
    const canvas = el.querySelector('canvas');
    canvas?.setAttribute('role', 'img');
    canvas?.setAttribute('aria-label', `${data.title}: line chart; the numbers are in the table`);
    const ro = new ResizeObserver(() => plot.setSize({ width: width(), height: 240 }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.destroy();
    };
  }, [data]);
  const tableId = `table-${data.id}`;
  return (
    <section class="card chart" aria-labelledby={`title-${data.id}`} data-chart={data.id}>
      <header class="chart-head">
        <h2 id={`title-${data.id}`}>{data.title}</h2>
        <div class="actions">
          <button
            type="button"
            aria-expanded={table}
            aria-controls={tableId}
            onClick={() => setTable(!table)}
          >
            {table ? 'Hide table' : 'Show table'}
          </button>
          <button type="button" onClick={() => download(data)}>
            Download CSV
          </button>
        </div>
      </header>
      {data.note && <p class="note">{data.note}</p>}
      {data.dates.length === 0 ? (
        <p class="empty">No weeks in this range.</p>
      ) : (
        <div class="plot" ref={box} />
      )}
      {table && (
        <div class="table-wrap" id={tableId}>
          <table>
            <caption class="visually-hidden">{data.title}</caption>
            <thead>
              <tr>
                <th scope="col">week ending</th>
                {data.series.map((s) => (
                  <th scope="col" key={s.label}>
                    {s.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {data.dates.map((d, i) => (
                <tr key={d}>
                  <th scope="row">{day(d)}</th>
                  {data.series.map((s) => (
                    <td key={s.label}>{cell(s.values[i] ?? null)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
