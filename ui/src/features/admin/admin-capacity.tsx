import {
  Box,
  Grid,
  LinearProgress,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { Link as RouterLink } from 'react-router';
import { ApiRequestError } from '../../api/api-error.ts';
import { type HostCapacity, useHostCapacityQuery } from '../../api/usage.queries.ts';
import { LoadState } from '../../components/load-state.tsx';
import { formatBytes, formatCount, formatCpu } from '../instances/usage-words.ts';
import { AdminSection } from './admin-section.tsx';

const PERCENT = new Intl.NumberFormat('en', { style: 'percent', maximumFractionDigits: 0 });

interface MeterProps {
  label: string;
  used: number;
  total: number;
  words: string;
  /** The share past which the meter warns; default 1 (oversold). */
  warnAt?: number;
}

/** One meter: what is sold (or used) of what the host has; past `warnAt` (100 %: oversold) it warns. */
function Meter({ label, used, total, words, warnAt = 1 }: MeterProps) {
  const share = total > 0 ? used / total : 0;
  const warn = share > warnAt;
  return (
    <Box>
      <Stack direction="row" sx={{ justifyContent: 'space-between', mb: 0.75 }}>
        <Typography variant="subtitle2" component="h3">
          {label}
        </Typography>
        <Typography variant="body2" color={warn ? 'warning.main' : 'text.secondary'}>
          {PERCENT.format(share)}
        </Typography>
      </Stack>
      <LinearProgress
        variant="determinate"
        value={Math.min(1, share) * 100}
        color={warn ? 'warning' : 'primary'}
        aria-label={label}
        sx={{ height: 8, borderRadius: 4, mb: 0.75 }}
      />
      <Typography variant="body2" color="text.secondary">
        {words}
      </Typography>
    </Box>
  );
}

/** The machines instances run on (a swarm's nodes, per region), with what is reserved on each. */
function PlacesTable({ places }: { places: HostCapacity['places'] }) {
  return (
    <Box>
      <Typography variant="subtitle2" component="h3" sx={{ mb: 1 }}>
        Servers
      </Typography>
      <TableContainer>
        <Table size="small" aria-label="Servers">
          <TableHead>
            <TableRow>
              <TableCell>Region</TableCell>
              <TableCell>Server</TableCell>
              <TableCell>State</TableCell>
              <TableCell align="right">Memory reserved</TableCell>
              <TableCell align="right">CPU reserved</TableCell>
              <TableCell align="right">Disk used</TableCell>
              <TableCell align="right">Disk promised</TableCell>
              <TableCell align="right">Instances</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {places.map((place) => (
              <TableRow key={`${place.region}/${place.node}`}>
                <TableCell>{place.region}</TableCell>
                <TableCell>{place.node}</TableCell>
                <TableCell>{place.state}</TableCell>
                <TableCell align="right">
                  {formatBytes(place.reservedMemoryBytes)} of {formatBytes(place.memoryBytes)}
                </TableCell>
                <TableCell align="right">
                  {formatCpu(place.reservedCpus)} of {formatCpu(place.cpus)}
                </TableCell>
                <TableCell align="right">
                  {place.diskBytes > 0
                    ? `${formatBytes(place.diskBytes - place.diskFreeBytes)} of ${formatBytes(place.diskBytes)}`
                    : '—'}
                </TableCell>
                <TableCell align="right">
                  {place.storage
                    ? `${formatBytes(place.storage.promisedBytes)} of ${formatBytes(place.storage.promiseLimitBytes)}${
                        place.storage.holdAllowanceBytes === null
                          ? ''
                          : `; held, ${formatBytes(place.storage.holdAllowanceBytes)} each at once`
                      }`
                    : '—'}
                </TableCell>
                <TableCell align="right">{formatCount(place.instances)}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </TableContainer>
    </Box>
  );
}

type Storage = NonNullable<HostCapacity['storage']>;

/** The hold, in an admin's words: instances' disks could together take the reserve. */
const holdWords = (allowance: number) =>
  `Instances’ disks are held out of the reserve: each may write about ${formatBytes(allowance)} more at once, and more as it writes.`;

/** The disk as its policy sees it: real use against the high-water mark, and what is promised. */
function storageMeters(storage: Storage): MeterProps[] {
  const room = storage.sizeBytes - storage.reserveBytes;
  return [
    {
      label: 'Disk used',
      used: storage.usedBytes,
      total: room,
      warnAt: 0.75,
      words: `${formatBytes(storage.usedBytes)} used of ${formatBytes(room)} (${formatBytes(storage.reserveBytes)} more kept for the platform); new instances are refused past ${PERCENT.format(storage.highWaterBytes / Math.max(1, room))}`,
    },
    {
      label: 'Disk promised',
      used: storage.promisedBytes,
      total: storage.promiseLimitBytes,
      words: `${formatBytes(storage.promisedBytes)} promised to instances’ disks, ${formatBytes(storage.tenantUsedBytes)} of it written; up to ${formatBytes(storage.promiseLimitBytes)} (${storage.overcommit}× the real space)`,
    },
  ];
}

function CapacityView({ capacity }: { capacity: HostCapacity }) {
  const { memory, cpu, disk, busiest, places, storage } = capacity;
  const diskUsed = disk.totalBytes - disk.freeBytes;
  const taking = places.filter((place) => place.state === 'active').length;
  const where =
    places.length > 0
      ? `on ${formatCount(taking)} server${taking === 1 ? '' : 's'} taking instances`
      : 'on the host';
  const meters = [
    {
      label: 'Memory sold',
      used: memory.soldBytes,
      total: memory.hostBytes,
      words: `${formatBytes(memory.soldBytes)} sold of ${formatBytes(memory.hostBytes)} ${where}`,
    },
    {
      label: 'CPU sold',
      used: cpu.soldCpus,
      total: cpu.hostCpus,
      words: `${formatCpu(cpu.soldCpus)} sold of ${formatCpu(cpu.hostCpus)} ${where}`,
    },
    ...(storage
      ? storageMeters(storage)
      : [
          {
            label: 'Disk used',
            used: diskUsed,
            total: disk.totalBytes,
            words: `${formatBytes(diskUsed)} used of ${formatBytes(disk.totalBytes)}; ${formatBytes(disk.freeBytes)} free`,
          },
        ]),
  ];
  return (
    <Stack spacing={3}>
      <Typography variant="body2" color="text.secondary">
        {formatCount(capacity.instances)} deployed instances; limits enforced by {capacity.enforcement}.
        {storage && ` Room for about ${formatCount(storage.headroomSites)} more WordPress sites.`}
        {storage && storage.holdAllowanceBytes !== null && ` ${holdWords(storage.holdAllowanceBytes)}`}
      </Typography>
      <Grid container spacing={3}>
        {meters.map((meter) => (
          <Grid key={meter.label} size={{ xs: 12, md: 12 / meters.length }}>
            <Meter {...meter} />
          </Grid>
        ))}
      </Grid>
      {places.length > 0 && <PlacesTable places={places} />}
      <Box>
        <Typography variant="subtitle2" component="h3" sx={{ mb: 1 }}>
          Busiest instances (last hour, by CPU)
        </Typography>
        {busiest.length === 0 ? (
          <Typography variant="body2" color="text.secondary">
            No instance used anything in the last hour.
          </Typography>
        ) : (
          <TableContainer>
            <Table size="small" aria-label="Busiest instances">
              <TableHead>
                <TableRow>
                  <TableCell>Instance</TableCell>
                  <TableCell>Type</TableCell>
                  <TableCell align="right">CPU</TableCell>
                  <TableCell align="right">Memory</TableCell>
                  <TableCell align="right">Requests</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {busiest.map((row) => (
                  <TableRow key={row.id}>
                    <TableCell>
                      <RouterLink to={`/instances/${row.id}?tab=usage`}>{row.name}</RouterLink>
                    </TableCell>
                    <TableCell>{row.type}</TableCell>
                    <TableCell align="right">{formatCpu(row.cpu)}</TableCell>
                    <TableCell align="right">
                      {row.memoryBytes === null
                        ? '—'
                        : `${formatBytes(row.memoryBytes)}${row.memoryLimitBytes ? ` of ${formatBytes(row.memoryLimitBytes)}` : ''}`}
                    </TableCell>
                    <TableCell align="right">{formatCount(row.requests)}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
        )}
      </Box>
    </Stack>
  );
}

/**
 * Host capacity (Admin Panel → Server): memory and CPU sold against what the host has, its disk,
 * and the ten instances that used the most CPU in the last hour.
 */
export function AdminCapacity() {
  const query = useHostCapacityQuery();
  const unmeasured = query.error instanceof ApiRequestError && query.error.status === 404;
  return (
    <AdminSection
      id="admin-capacity"
      title="Host capacity"
      text="Memory and CPU sold to deployed instances against what the servers have, their disks, and the busiest instances."
      control={null}
    >
      {unmeasured ? (
        <Typography color="text.secondary">This server's provisioning driver measures nothing.</Typography>
      ) : (
        <LoadState query={query} loading="Loading..." failed="The host's capacity could not be loaded." />
      )}
      {query.data && <CapacityView capacity={query.data} />}
    </AdminSection>
  );
}
