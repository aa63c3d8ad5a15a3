import {
  Alert,
  Box,
  CircularProgress,
  Grid,
  LinearProgress,
  Stack,
  ToggleButton,
  ToggleButtonGroup,
  Typography,
} from '@mui/material';
import { lazy, Suspense, useState } from 'react';
import type { Instance } from '../../api/instances.queries.ts';
import {
  USAGE_RANGES,
  type UsageRange,
  type UsageReport,
  useInstanceUsageQuery,
} from '../../api/usage.queries.ts';
import { FeatureUnavailable, unavailableReason } from './instance-features.tsx';
import { outOfMemoryLine, RANGE_WORDS, usageInWords } from './usage-words.ts';

const charts = () => import('./usage-charts.tsx');
const CpuChart = lazy(async () => ({ default: (await charts()).CpuChart }));
const MemoryChart = lazy(async () => ({ default: (await charts()).MemoryChart }));
const RequestsChart = lazy(async () => ({ default: (await charts()).RequestsChart }));

/** From this share of its disk on, the bar turns to a warning (the server warns at 80 % too). */
const DISK_WARNING_SHARE = 0.8;

const RANGE_LABELS: Record<UsageRange, string> = { '1h': '1 hour', '24h': '24 hours', '7d': '7 days' };

/** Whether this server measures the instance's usage (its `features.usage`). */
const measured = (instance: Instance) => unavailableReason(instance, 'usage') === null;

/**
 * "Restarted after running out of memory at 14:02": shown on the instance page when the system
 * stopped one of its processes for memory in the last day.
 */
export function OutOfMemoryNotice({ instance }: { instance: Instance }) {
  const usage = useInstanceUsageQuery(
    instance.id,
    '1h',
    measured(instance) && instance.status !== 'deleting',
  );
  const at = usage.data?.lastOutOfMemoryAt;
  if (!at) return null;
  const when = new Date(at);
  if (Date.now() - when.getTime() > 86_400_000) return null;
  return (
    <Alert severity="warning" sx={{ mb: 3 }}>
      {outOfMemoryLine(when, new Date())}
    </Alert>
  );
}

/** The Configuration card's rows of what limits apply, from the usage report (empty until it loads). */
export function useAppliedLimits(instance: Instance) {
  const usage = useInstanceUsageQuery(
    instance.id,
    '1h',
    measured(instance) && instance.status !== 'deleting',
  );
  return { limits: usage.data?.limits ?? [], sharedServer: usage.data?.sharedServer ?? false };
}

/** Disk used against its size. */
function DiskMeter({ used, limit, words }: { used: number | null; limit: number | null; words: string }) {
  if (used === null) return null;
  const share = limit ? Math.min(1, used / limit) : null;
  return (
    <Box>
      <Typography variant="subtitle2" component="h3" sx={{ mb: 1 }}>
        Disk
      </Typography>
      {share !== null && (
        <LinearProgress
          variant="determinate"
          value={share * 100}
          color={share >= DISK_WARNING_SHARE ? 'warning' : 'primary'}
          aria-label="Disk used"
          sx={{ height: 8, borderRadius: 4, mb: 1 }}
        />
      )}
      <Typography variant="body2" color="text.secondary">
        {words}
      </Typography>
    </Box>
  );
}

/**
 * The Usage tab: CPU, memory against its limit, disk against its size and requests by status class
 * over the last hour, 24 hours or 7 days. The last hour grows live (the stream's `usage` points). The
 * numbers in words come first: they are the charts' text alternative.
 */
export function UsageTab({ instance }: { instance: Instance }) {
  const notOffered = unavailableReason(instance, 'usage');
  return notOffered ? <FeatureUnavailable reason={notOffered} /> : <MeasuredUsage instance={instance} />;
}

/** The Usage tab of an instance whose usage this server measures. */
function MeasuredUsage({ instance }: { instance: Instance }) {
  const [range, setRange] = useState<UsageRange>('1h');
  const usage = useInstanceUsageQuery(instance.id, range);
  const report = usage.data;

  return (
    <Stack spacing={3}>
      <Stack
        direction={{ xs: 'column', sm: 'row' }}
        sx={{ justifyContent: 'space-between', alignItems: { sm: 'center' }, gap: 1.5 }}
      >
        <Typography color="text.secondary" variant="body2">
          What this instance used over {RANGE_WORDS[range]}
          {range === '1h' ? ', updated every 15 seconds' : ''}.
        </Typography>
        <ToggleButtonGroup
          size="small"
          exclusive
          value={range}
          onChange={(_event, value: UsageRange | null) => value && setRange(value)}
          aria-label="Time range"
        >
          {USAGE_RANGES.map((value) => (
            <ToggleButton key={value} value={value}>
              {RANGE_LABELS[value]}
            </ToggleButton>
          ))}
        </ToggleButtonGroup>
      </Stack>

      {usage.isError && !report ? (
        <Alert severity="error">Usage could not be loaded. It is tried again in a minute.</Alert>
      ) : !report ? (
        <Stack role="status" sx={{ alignItems: 'center', py: 4 }}>
          <CircularProgress aria-label="Loading usage" />
        </Stack>
      ) : !report.measured ? (
        <Typography color="text.secondary">This server does not measure what its instances use.</Typography>
      ) : (
        <UsageReportView report={report} />
      )}
    </Stack>
  );
}

function UsageReportView({ report }: { report: UsageReport }) {
  const words = usageInWords(report);
  const { disk } = report.summary;
  return (
    <>
      <Box component="ul" aria-label="Usage in words" data-testid="usage-in-words" sx={{ m: 0, pl: 2.5 }}>
        {[words.cpu, words.memory, words.disk, words.requests].map(
          (line) =>
            line && (
              <Typography component="li" variant="body2" key={line}>
                {line}
              </Typography>
            ),
        )}
      </Box>
      {report.points.length === 0 ? (
        <Typography color="text.secondary">
          No measurements yet: the first ones come within 15 seconds of the instance running.
        </Typography>
      ) : (
        <Suspense
          fallback={
            <Stack role="status" sx={{ alignItems: 'center', py: 4 }}>
              <CircularProgress aria-label="Loading the charts" />
            </Stack>
          }
        >
          <Grid container spacing={3}>
            {report.summary.cpu.peak !== null && (
              <Grid size={{ xs: 12, md: 6 }}>
                <CpuChart report={report} />
              </Grid>
            )}
            {report.summary.memory.peak !== null && (
              <Grid size={{ xs: 12, md: 6 }}>
                <MemoryChart report={report} />
              </Grid>
            )}
            {report.summary.requests && (
              <Grid size={{ xs: 12, md: 6 }}>
                <RequestsChart report={report} />
              </Grid>
            )}
            <Grid size={{ xs: 12, md: 6 }}>
              <DiskMeter used={disk.used} limit={disk.limit} words={words.disk} />
            </Grid>
          </Grid>
        </Suspense>
      )}
    </>
  );
}

const UsageSparklines = lazy(async () => ({ default: (await charts()).UsageSparklines }));

/**
 * The dashboard's small memory and CPU lines of an instance's last hour, with the current values in
 * words under them; nothing while it is not running or this server measures nothing.
 */
export function UsageSparklineRow({ instance }: { instance: Instance }) {
  const running = instance.status === 'running';
  const usage = useInstanceUsageQuery(instance.id, '1h', running && measured(instance));
  const report = usage.data;
  if (!running || !report?.measured || report.points.length === 0) return null;
  const words = usageInWords(report);
  return (
    <Box component="section" aria-label="Usage, last hour" sx={{ mt: 2.5 }}>
      <Suspense fallback={null}>
        <UsageSparklines report={report} />
      </Suspense>
      <Typography variant="caption" color="text.secondary" component="p" sx={{ mt: 0.5 }}>
        {words.memory} {words.cpu}
      </Typography>
    </Box>
  );
}
