import { Box, Typography, useTheme } from '@mui/material';
import { BarChart } from '@mui/x-charts/BarChart';
import { ChartsReferenceLine } from '@mui/x-charts/ChartsReferenceLine';
import { LineChart } from '@mui/x-charts/LineChart';
import { SparkLineChart } from '@mui/x-charts/SparkLineChart';
import type { UsagePoint, UsageReport } from '../../api/usage.queries.ts';
import { formatBytes, formatCount, formatCpu, usageInWords } from './usage-words.ts';

/*
 * The usage charts (loaded on demand: the charts library is its own chunk). Each chart is drawn
 * with the theme's palette, so it reads in dark and light; its numbers are in words beside it
 * (usage-words.ts), which is also each chart's name (role img) for screen readers.
 */

const HEIGHT = 220;
const timeOf = (report: UsageReport) => report.points.map((p) => new Date(p.at));
const TIME = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
const DAY_TIME = new Intl.DateTimeFormat(undefined, { weekday: 'short', hour: '2-digit', minute: '2-digit' });
const tickOf = (report: UsageReport) => (date: Date) =>
  (report.range === '7d' ? DAY_TIME : TIME).format(date);
const RANGE_MS: Record<UsageReport['range'], number> = {
  '1h': 3_600_000,
  '24h': 86_400_000,
  '7d': 604_800_000,
};
/** The time axis spans the whole range (ending at the last point), however few points there are yet. */
const timeAxis = (report: UsageReport) => {
  const end = report.points.length > 0 ? Date.parse(report.points.at(-1)?.at ?? '') : Date.now();
  return {
    scaleType: 'time' as const,
    data: timeOf(report),
    min: new Date(end - RANGE_MS[report.range]),
    max: new Date(end),
    valueFormatter: tickOf(report),
  };
};
function ChartTitle({ children }: { children: string }) {
  return (
    <Typography variant="subtitle2" component="h3" sx={{ mb: 0.5 }}>
      {children}
    </Typography>
  );
}

/** The limit as a dashed line across the chart, labelled. */
function LimitLine({ value, label }: { value: number; label: string }) {
  const theme = useTheme();
  const color = theme.palette.text.secondary;
  return (
    <ChartsReferenceLine
      y={value}
      label={label}
      labelAlign="start"
      lineStyle={{ stroke: color, strokeDasharray: '6 4' }}
      labelStyle={{ fill: color, fontSize: 12 }}
    />
  );
}

/** The y axis from 0 to a little above the limit (so that the limit line shows), or to the data. */
const yAxisUpTo = (limit: number | null, values: (number | null)[], format: (v: number) => string) => {
  const highest = Math.max(0, ...values.filter((v): v is number => v !== null));
  return {
    min: 0,
    max: limit ? Math.max(limit, highest) * 1.15 : undefined,
    width: 72,
    valueFormatter: format,
  };
};

/** One measure over time as an area, with its limit (when it has one) as a labelled line. */
function MeasureChart({
  report,
  title,
  name,
  testId,
  data,
  limit,
  format,
  color,
}: {
  report: UsageReport;
  title: string;
  /** The chart's text alternative: its numbers in words. */
  name: string;
  testId: string;
  data: (number | null)[];
  limit: number | null;
  format: (value: number) => string;
  color: string;
}) {
  return (
    <Box role="img" aria-label={name} data-testid={testId}>
      <ChartTitle>{title}</ChartTitle>
      <LineChart
        height={HEIGHT}
        skipAnimation
        hideLegend
        xAxis={[timeAxis(report)]}
        yAxis={[yAxisUpTo(limit, data, format)]}
        series={[
          {
            label: title,
            data,
            showMark: false,
            area: true,
            color,
            valueFormatter: (v) => (v === null ? '' : format(v)),
          },
        ]}
      >
        {limit !== null && <LimitLine value={limit} label={`Limit ${format(limit)}`} />}
      </LineChart>
    </Box>
  );
}

/** CPU in vCPUs, with the instance's own limit when it has one. */
export function CpuChart({ report }: { report: UsageReport }) {
  const theme = useTheme();
  return (
    <MeasureChart
      report={report}
      title="CPU"
      name={usageInWords(report).cpu}
      testId="usage-cpu-chart"
      data={report.points.map((p) => p.cpu)}
      limit={report.cpuLimit}
      format={formatCpu}
      color={theme.palette.primary.main}
    />
  );
}

/** Memory in use against the limit. */
export function MemoryChart({ report }: { report: UsageReport }) {
  const theme = useTheme();
  return (
    <MeasureChart
      report={report}
      title="Memory"
      name={usageInWords(report).memory}
      testId="usage-memory-chart"
      data={report.points.map((p) => p.memoryBytes)}
      limit={report.summary.memory.limit}
      format={formatBytes}
      color={theme.palette.secondary.main}
    />
  );
}

/** Responses per step, stacked by status class. */
export function RequestsChart({ report }: { report: UsageReport }) {
  const theme = useTheme();
  const count = (pick: (r: NonNullable<UsagePoint['requests']>) => number) =>
    report.points.map((p) => (p.requests ? pick(p.requests) : null));
  const format = (v: number | null) => (v === null ? '' : formatCount(v));
  return (
    <Box
      role="img"
      aria-label={usageInWords(report).requests ?? 'Requests'}
      data-testid="usage-requests-chart"
    >
      <ChartTitle>Requests</ChartTitle>
      <BarChart
        height={HEIGHT}
        skipAnimation
        xAxis={[
          {
            scaleType: 'band',
            data: timeOf(report),
            valueFormatter: tickOf(report),
            tickLabelInterval: (_value, index) =>
              index % Math.max(1, Math.ceil(report.points.length / 6)) === 0,
          },
        ]}
        yAxis={[{ min: 0, width: 48 }]}
        series={[
          {
            label: '2xx',
            data: count((r) => r.status2xx),
            stack: 'requests',
            color: theme.palette.success.main,
            valueFormatter: format,
          },
          {
            label: '3xx',
            data: count((r) => r.status3xx),
            stack: 'requests',
            color: theme.palette.info.main,
            valueFormatter: format,
          },
          {
            label: '4xx',
            data: count((r) => r.status4xx),
            stack: 'requests',
            color: theme.palette.warning.main,
            valueFormatter: format,
          },
          {
            label: '5xx',
            data: count((r) => r.status5xx),
            stack: 'requests',
            color: theme.palette.error.main,
            valueFormatter: format,
          },
        ]}
      />
    </Box>
  );
}

/** The dashboard's small memory and CPU lines (the last hour), each from 0 up to its limit. */
export function UsageSparklines({ report }: { report: UsageReport }) {
  const theme = useTheme();
  const memory = report.points.map((p) => p.memoryBytes ?? 0);
  const cpu = report.points.map((p) => p.cpu ?? 0);
  return (
    <Box
      role="img"
      aria-label="Memory and CPU over the last hour"
      sx={{ display: 'grid', gridTemplateColumns: '1fr 1fr', gap: 2 }}
    >
      <Box>
        <Typography variant="caption" color="text.secondary">
          Memory, last hour
        </Typography>
        <SparkLineChart
          data={memory}
          yAxis={{ min: 0, max: report.summary.memory.limit ?? undefined }}
          height={36}
          area
          color={theme.palette.secondary.main}
        />
      </Box>
      <Box>
        <Typography variant="caption" color="text.secondary">
          CPU, last hour
        </Typography>
        <SparkLineChart
          data={cpu}
          yAxis={{ min: 0, max: report.cpuLimit ?? undefined }}
          height={36}
          area
          color={theme.palette.primary.main}
        />
      </Box>
    </Box>
  );
}
