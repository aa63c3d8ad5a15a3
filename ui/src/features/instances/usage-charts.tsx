import { Box, Typography, useTheme } from '@mui/material';
import { BarChart } from '@mui/x-charts/BarChart';
import { LineChart } from '@mui/x-charts/LineChart';
import { SparkLineChart } from '@mui/x-charts/SparkLineChart';
import type { UsagePoint, UsageReport } from '../../api/usage.queries.ts';
import { formatBytes, formatCount, formatCpu } from './usage-words.ts';

/*
 * The usage charts (loaded on demand: the charts library is its own chunk). Each chart is drawn
 * with the theme's palette, so it reads in dark and light; its numbers are in words beside it
 * (usage-words.ts), which is what screen readers get: the SVG itself is hidden from them.
 */

const HEIGHT = 220;
const timeOf = (report: UsageReport) => report.points.map((p) => new Date(p.at));
const TIME = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
const DAY_TIME = new Intl.DateTimeFormat(undefined, { weekday: 'short', hour: '2-digit', minute: '2-digit' });
const tickOf = (report: UsageReport) => (date: Date) =>
  (report.range === '7d' ? DAY_TIME : TIME).format(date);
const limitLine = (report: UsageReport, pick: (p: UsagePoint) => number | null) => report.points.map(pick);

function ChartTitle({ children }: { children: string }) {
  return (
    <Typography variant="subtitle2" component="h3" sx={{ mb: 0.5 }}>
      {children}
    </Typography>
  );
}

/** CPU in vCPUs, with the instance's own limit when it has one. */
export function CpuChart({ report }: { report: UsageReport }) {
  const limit = report.cpuLimit;
  const theme = useTheme();
  return (
    <Box aria-hidden data-testid="usage-cpu-chart">
      <ChartTitle>CPU</ChartTitle>
      <LineChart
        height={HEIGHT}
        skipAnimation
        xAxis={[{ scaleType: 'time', data: timeOf(report), valueFormatter: tickOf(report) }]}
        yAxis={[{ min: 0, width: 56, valueFormatter: (v: number) => formatCpu(v) }]}
        series={[
          {
            label: 'Used',
            data: report.points.map((p) => p.cpu),
            showMark: false,
            area: true,
            color: theme.palette.primary.main,
            valueFormatter: (v) => (v === null ? '' : formatCpu(v)),
          },
          ...(limit === null
            ? []
            : [
                {
                  label: 'Limit',
                  data: report.points.map(() => limit),
                  showMark: false,
                  color: theme.palette.text.secondary,
                  valueFormatter: (v: number | null) => (v === null ? '' : formatCpu(v)),
                },
              ]),
        ]}
      />
    </Box>
  );
}

/** Memory in use against the limit. */
export function MemoryChart({ report }: { report: UsageReport }) {
  const theme = useTheme();
  const hasLimit = report.points.some((p) => p.memoryLimitBytes !== null);
  const bytes = (v: number | null) => (v === null ? '' : formatBytes(v));
  return (
    <Box aria-hidden data-testid="usage-memory-chart">
      <ChartTitle>Memory</ChartTitle>
      <LineChart
        height={HEIGHT}
        skipAnimation
        xAxis={[{ scaleType: 'time', data: timeOf(report), valueFormatter: tickOf(report) }]}
        yAxis={[{ min: 0, width: 64, valueFormatter: (v: number) => formatBytes(v) }]}
        series={[
          {
            label: 'In use',
            data: report.points.map((p) => p.memoryBytes),
            showMark: false,
            area: true,
            color: theme.palette.secondary.main,
            valueFormatter: bytes,
          },
          ...(hasLimit
            ? [
                {
                  label: 'Limit',
                  data: limitLine(report, (p) => p.memoryLimitBytes),
                  showMark: false,
                  color: theme.palette.text.secondary,
                  valueFormatter: bytes,
                },
              ]
            : []),
        ]}
      />
    </Box>
  );
}

/** Responses per step, stacked by status class. */
export function RequestsChart({ report }: { report: UsageReport }) {
  const theme = useTheme();
  const count = (pick: (r: NonNullable<UsagePoint['requests']>) => number) =>
    report.points.map((p) => (p.requests ? pick(p.requests) : null));
  const format = (v: number | null) => (v === null ? '' : formatCount(v));
  return (
    <Box aria-hidden data-testid="usage-requests-chart">
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

/** The dashboard's small memory and CPU lines (the last hour). */
export function UsageSparklines({ report }: { report: UsageReport }) {
  const theme = useTheme();
  const memory = report.points.map((p) => p.memoryBytes ?? 0);
  const cpu = report.points.map((p) => p.cpu ?? 0);
  return (
    <Box aria-hidden sx={{ display: 'grid', gridTemplateColumns: '1fr 1fr', gap: 2 }}>
      <Box>
        <Typography variant="caption" color="text.secondary">
          Memory, last hour
        </Typography>
        <SparkLineChart data={memory} height={36} area color={theme.palette.secondary.main} />
      </Box>
      <Box>
        <Typography variant="caption" color="text.secondary">
          CPU, last hour
        </Typography>
        <SparkLineChart data={cpu} height={36} area color={theme.palette.primary.main} />
      </Box>
    </Box>
  );
}
