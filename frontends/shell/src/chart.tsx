/**
 * The overview's bar chart in plain SVG: a y-axis with round ticks and values, x-axis date labels, the value of the
 * bar under the pointer or chosen with the arrow keys (one tab stop), and a table of the same numbers for screen readers.
 * It is drawn at the pixel width of its box, so its text stays legible at phone width.
 */
import { useEffect, useRef, useState, type KeyboardEvent, type PointerEvent, type RefObject } from "react";
import { labelIndexes, niceTicks } from "./chart-scale.ts";

export interface ChartPoint {
  readonly key: string;
  /** Short x-axis label ("26 Nov"). */
  readonly label: string;
  /** The bucket in words ("week of 23 Nov 2026"). */
  readonly name: string;
  readonly value: number;
}

const HEIGHT = 180;
const MARGIN = { top: 10, right: 8, bottom: 24, left: 40 };

/** The width of an element's content box, kept current. */
function useWidth<T extends HTMLElement>(initial: number): [RefObject<T | null>, number] {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(initial);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const observer = new ResizeObserver(([entry]) => entry && setWidth(Math.max(120, Math.floor(entry.contentRect.width))));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}

/** `period`: what one bar is, in the plural ("days", "weeks", "months"). */
export function BarChart({ title, unit, period, points, testId }: { title: string; unit: string; period: string; points: readonly ChartPoint[]; testId?: string }) {
  const [box, width] = useWidth<HTMLDivElement>(560);
  const [active, setActive] = useState<number | null>(null);
  const ticks = niceTicks(Math.max(0, ...points.map((p) => p.value)));
  const top = ticks[ticks.length - 1]!;
  const plotW = width - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const step = points.length ? plotW / points.length : plotW;
  const y = (v: number) => MARGIN.top + plotH - (v / top) * plotH;
  const total = points.reduce((sum, p) => sum + p.value, 0);
  const shown = active === null ? undefined : points[active];
  const pick = (e: PointerEvent<SVGSVGElement>) => {
    const x = e.clientX - e.currentTarget.getBoundingClientRect().left - MARGIN.left;
    setActive(x < 0 || x >= plotW || !points.length ? null : Math.min(points.length - 1, Math.floor(x / step)));
  };
  const move = (e: KeyboardEvent<SVGSVGElement>) => {
    const last = points.length - 1;
    const current = active ?? last + 1;
    const to = ({ ArrowRight: Math.min(last, current + 1), ArrowLeft: Math.max(0, current - 1), Home: 0, End: last } as Record<string, number>)[e.key];
    if (to === undefined || last < 0) return;
    e.preventDefault();
    setActive(to);
  };
  return (
    <figure style={{ margin: 0 }} data-testid={testId} data-total={total}>
      <figcaption className="vs-spread" style={{ gap: 8, flexWrap: "wrap" }}>
        <span className="vs-label">{title}</span>
        <span className="vs-hint" aria-live="polite" data-testid={testId && `${testId}-value`}>
          {shown ? `${shown.name} · ${unit}: ${shown.value.toLocaleString()}` : `${unit} in total: ${total.toLocaleString()}`}
        </span>
      </figcaption>
      <div ref={box}>
        <svg
          width={width}
          height={HEIGHT}
          viewBox={`0 0 ${width} ${HEIGHT}`}
          role="img"
          aria-label={`${title}: ${total} in ${points.length} ${period}`}
          aria-description="Arrow keys read each value."
          tabIndex={0}
          onPointerMove={pick}
          onPointerLeave={() => setActive(null)}
          onKeyDown={move}
          onBlur={() => setActive(null)}
          style={{ display: "block", overflow: "visible" }}
        >
          <g data-axis="y" fontSize={11} fill="currentColor">
            {ticks.map((t) => (
              <g key={t}>
                <line x1={MARGIN.left} x2={width - MARGIN.right} y1={y(t)} y2={y(t)} stroke="var(--vs-border)" strokeDasharray={t === 0 ? undefined : "2 3"} />
                <text x={MARGIN.left - 6} y={y(t)} dy="0.32em" textAnchor="end" className="vs-muted">
                  {t.toLocaleString()}
                </text>
              </g>
            ))}
          </g>
          {points.map((p, i) => {
            const h = y(0) - y(p.value);
            return (
              <rect
                key={p.key}
                x={MARGIN.left + i * step + Math.min(2, step * 0.15)}
                y={y(p.value)}
                width={Math.max(1, step - 2 * Math.min(2, step * 0.15))}
                height={h}
                rx={Math.min(2, step / 4)}
                fill="var(--vs-primary)"
                opacity={active === null || active === i ? 1 : 0.45}
              />
            );
          })}
          {shown && active !== null ? (
            <line x1={MARGIN.left + (active + 0.5) * step} x2={MARGIN.left + (active + 0.5) * step} y1={MARGIN.top} y2={y(0)} stroke="var(--vs-text)" strokeOpacity={0.3} />
          ) : null}
          <g data-axis="x" fontSize={11} fill="currentColor">
            {labelIndexes(points.length, Math.max(2, Math.floor(plotW / 64))).map((i) => (
              <text key={points[i]!.key} x={MARGIN.left + (i + 0.5) * step} y={HEIGHT - 6} textAnchor={i === 0 && points.length > 1 ? "start" : i === points.length - 1 && points.length > 1 ? "end" : "middle"} className="vs-muted">
                {points[i]!.label}
              </text>
            ))}
          </g>
        </svg>
      </div>
      <table className="vs-sr-only">
        <caption>{title}</caption>
        <tbody>
          {points.map((p) => (
            <tr key={p.key}>
              <th scope="row">{p.name}</th>
              <td>{p.value}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
