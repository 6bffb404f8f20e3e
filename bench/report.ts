// The one table the bench prints, and the JSON it writes under bench/results/.
import type { Figures, Medians, RunFigures, Scenario, Side, Verdict } from './scenario.js';

export interface ScenarioResult {
  scenario: Scenario;
  runs: Partial<Record<Side, RunFigures[]>>;
  medians: Medians;
  verdict: Verdict;
}

const COLUMNS = [
  ['scenario / series', 44],
  ['side', 9],
  ['req/s', 9],
  ['p50 ms', 8],
  ['p99 ms', 8],
  ['RSS MB', 7],
  ['node %', 7],
  ['pg %', 6],
  ['vs baseline', 12],
] as const;

/** How the table names the baseline side: the bare server, or another tprm-api build (`--against`). */
export interface Comparison {
  side: string;
  column: string;
  /** The scenarios' targets are set against the bare server: another build is compared, not judged. */
  judged: boolean;
}
export const AGAINST_BARE: Comparison = { side: 'baseline', column: 'vs baseline', judged: true };
export const AGAINST_BUILD: Comparison = { side: 'against', column: 'vs against', judged: false };
export const AGAINST_CEILING: Comparison = { side: 'ceiling', column: 'vs ceiling', judged: false };

const cell = (text: string, width: number, left = false) =>
  left ? text.slice(0, width).padEnd(width) : text.slice(0, width).padStart(width);

const number = (value: number | undefined, digits = 0) =>
  value === undefined || !Number.isFinite(value)
    ? '-'
    : value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** tprm-api against the baseline: throughput, or median latency for a series run at a fixed rate. */
function versus(api: Figures | undefined, baseline: Figures | undefined): string {
  if (!api || !baseline) return '';
  if (api.offeredRate !== undefined) {
    const ratio = (api.p50Ms ?? Number.NaN) / (baseline.p50Ms ?? Number.NaN);
    return Number.isFinite(ratio) ? `p50 ${ratio.toFixed(2)}x` : '';
  }
  const ratio = (api.reqPerSec ?? Number.NaN) / (baseline.reqPerSec ?? Number.NaN);
  return Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : '';
}

export function renderTable(
  title: string,
  results: readonly ScenarioResult[],
  comparison: Comparison = AGAINST_BARE,
): string {
  const header = COLUMNS.map(([name, width], i) =>
    cell(i === COLUMNS.length - 1 ? comparison.column : name, width, i < 2),
  );
  const lines = [title, header.join(' ')];
  lines.push('-'.repeat(lines[1]?.length ?? 0));
  for (const { scenario, medians, verdict } of results) {
    const seriesNames = [...new Set(Object.values(medians).flatMap((series) => Object.keys(series ?? {})))];
    for (const series of seriesNames) {
      scenario.sides.forEach((side, i) => {
        const figures = medians[side]?.[series];
        if (!figures) return;
        const label = i === 0 ? `${scenario.name}: ${series}` : '';
        const rate =
          figures.offeredRate === undefined ? number(figures.reqPerSec) : `@${number(figures.offeredRate)}`;
        lines.push(
          [
            cell(label, 44, true),
            cell(side === 'baseline' ? comparison.side : side, 9, true),
            cell(rate, 9),
            cell(number(figures.p50Ms, 1), 8),
            cell(number(figures.p99Ms, 1), 8),
            cell(number(figures.rssMb), 7),
            cell(number(figures.nodeCpuPct), 7),
            cell(number(figures.pgCpuPct), 6),
            cell(side === 'api' ? versus(figures, medians.baseline?.[series]) : '', 12),
          ].join(' '),
        );
      });
    }
    lines.push(
      comparison.judged
        ? `  target ${scenario.target}: ${verdict.ok ? 'MET' : 'NOT MET'} (${verdict.detail})`
        : `  ${verdict.detail}`,
    );
  }
  return lines.join('\n');
}

export function resultsJson(meta: Record<string, unknown>, results: readonly ScenarioResult[]): string {
  return `${JSON.stringify(
    {
      meta,
      scenarios: results.map(({ scenario, runs, medians, verdict }) => ({
        name: scenario.name,
        title: scenario.title,
        target: scenario.target,
        met: verdict.ok,
        verdict: verdict.detail,
        medians,
        runs,
      })),
    },
    null,
    2,
  )}\n`;
}
