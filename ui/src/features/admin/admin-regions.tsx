import {
  Box,
  Button,
  Chip,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { type AdminRegion, useAdminRegionsQuery, useNodeActionMutation } from '../../api/admin.queries.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { LoadState } from '../../components/load-state.tsx';
import { RefreshButton } from '../../components/refresh-button.tsx';
import { useToast } from '../../components/toasts/use-toast.ts';
import { AdminSection } from './admin-section.tsx';

const GIB = 1024 ** 3;
const ONE_DECIMAL = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });
const gib = (bytes: number) => `${ONE_DECIMAL.format(bytes / GIB)} GB`;
const share = (used: number, total: number) => (total > 0 ? Math.round((used / total) * 100) : 0);

type Node = AdminRegion['nodes'][number];

/** The label of a node drained from here (the server moves its instances off one by one). */
const DRAINING = 'berth.draining';

/**
 * Drain (a worker in service: its instances move, with their data, to the region's other servers) or
 * Put back in service (a drained one). A manager runs the front door and is never drained.
 */
function NodeActions({ node }: { node: Node }) {
  const [asking, setAsking] = useState(false);
  const mutation = useNodeActionMutation();
  const toast = useToast();
  const lost = 'berth.lost' in node.labels;
  if (node.role === 'manager' || lost || node.state !== 'ready') return null;
  if (node.availability !== 'active' || DRAINING in node.labels) {
    return (
      <Button
        size="small"
        disabled={mutation.isPending}
        onClick={() =>
          mutation.mutate(
            { action: 'activate', nodeId: node.id },
            {
              onSuccess: (answer) => toast.success(answer.message),
              onError: (error) => toast.error(error.message),
            },
          )
        }
      >
        Put back in service
      </Button>
    );
  }
  return (
    <>
      <Button size="small" color="warning" onClick={() => setAsking(true)}>
        Drain
      </Button>
      <ConfirmDialog
        open={asking}
        title={`Drain ${node.hostname}?`}
        text={`Nothing new will be placed on it, and each of its ${node.instances} instance${node.instances === 1 ? '' : 's'} is moved with all its data to another server of this region. Each runs until its own move and is unavailable for a minute or two while it moves, and its owner is told.`}
        confirmLabel="Drain"
        destructive
        pending={mutation.isPending}
        error={mutation.error?.message ?? null}
        onConfirm={() =>
          mutation.mutate(
            { action: 'drain', nodeId: node.id },
            {
              onSuccess: (answer) => {
                setAsking(false);
                toast.success(answer.message);
              },
            },
          )
        }
        onClose={() => {
          setAsking(false);
          mutation.reset();
        }}
      />
    </>
  );
}

/** One node: its state, where it is, and what its instances reserve of its memory and CPUs. */
function NodeRow({ node }: { node: Node }) {
  const labels = Object.entries(node.labels).map(([key, value]) => `${key}=${value}`);
  return (
    <TableRow>
      <TableCell>
        <Typography variant="body2" sx={{ fontWeight: 600 }}>
          {node.hostname}
        </Typography>
        <Typography variant="caption" color="text.secondary">
          {node.role} · {node.address}
          {labels.length > 0 && ` · ${labels.join(', ')}`}
        </Typography>
      </TableCell>
      <TableCell>
        {'berth.lost' in node.labels ? (
          // Down past the grace period: its instances were brought back elsewhere from their backups.
          <Chip size="small" variant="outlined" label="lost" color="error" />
        ) : DRAINING in node.labels ? (
          // Its instances run until each is moved; none left: drained.
          <Chip
            size="small"
            variant="outlined"
            label={node.instances > 0 ? 'draining' : 'drained'}
            color="warning"
          />
        ) : (
          <Chip
            size="small"
            variant="outlined"
            label={node.availability === 'active' ? node.state : `${node.state}, ${node.availability}`}
            color={node.state === 'ready' && node.availability === 'active' ? 'success' : 'warning'}
          />
        )}
      </TableCell>
      <TableCell>
        {gib(node.memoryReservedBytes)} of {gib(node.memoryBytes)} (
        {share(node.memoryReservedBytes, node.memoryBytes)}%)
      </TableCell>
      <TableCell>
        {ONE_DECIMAL.format(node.cpusReserved)} of {ONE_DECIMAL.format(node.cpus)} (
        {share(node.cpusReserved, node.cpus)}
        %)
      </TableCell>
      <TableCell align="right">{node.instances}</TableCell>
      <TableCell align="right">
        <NodeActions node={node} />
      </TableCell>
    </TableRow>
  );
}

function RegionCard({ region, scheduler }: { region: AdminRegion; scheduler: 'this-host' | 'swarm' }) {
  return (
    <Box
      component="li"
      aria-label={region.label}
      sx={{ p: 2, borderRadius: 2, border: 1, borderColor: 'divider' }}
    >
      <Stack direction="row" sx={{ gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
        <Typography component="h3" variant="subtitle1" sx={{ fontWeight: 600 }}>
          {region.label}
        </Typography>
        <Typography variant="body2" color="text.secondary">
          {region.region}
        </Typography>
        <Chip
          size="small"
          variant="outlined"
          label={region.available ? 'Deploys here' : 'Not offered'}
          color={region.available ? 'success' : 'default'}
        />
      </Stack>
      {region.reason && (
        <Typography variant="body2" sx={{ mt: 1 }}>
          Customers read: {region.reason}
        </Typography>
      )}
      {region.error && (
        <Typography variant="body2" color="error" sx={{ mt: 1, overflowWrap: 'anywhere' }}>
          Its swarm manager could not be asked: {region.error}
        </Typography>
      )}
      {scheduler === 'this-host' && region.available && (
        <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
          Every instance runs on the server that answers this page.
        </Typography>
      )}
      {region.nodes.length > 0 && (
        <TableContainer sx={{ mt: 1 }}>
          <Table size="small" aria-label={`Nodes of ${region.label}`}>
            <TableHead>
              <TableRow>
                <TableCell>Node</TableCell>
                <TableCell>State</TableCell>
                <TableCell>Memory reserved</TableCell>
                <TableCell>CPUs reserved</TableCell>
                <TableCell align="right">Instances</TableCell>
                <TableCell align="right">Actions</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {region.nodes.map((node) => (
                <NodeRow key={node.id} node={node} />
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      )}
    </Box>
  );
}

/**
 * Where instances run (Admin Panel → Server): each region customers can pick, whether this install
 * places instances there, and, on a swarm, its nodes as the swarm reports them (state, labels, memory
 * and CPUs reserved against what each has, instances).
 */
export function AdminRegions() {
  const query = useAdminRegionsQuery();
  const data = query.data;
  const shown = data?.regions.filter((region) => region.available || region.nodes.length > 0 || region.error);
  const others = data?.regions.filter((region) => !shown?.includes(region)) ?? [];
  return (
    <AdminSection
      id="admin-regions"
      title="Regions"
      text={
        data?.scheduler === 'swarm'
          ? 'The regions with a swarm, and each of their nodes as the swarm reports it.'
          : 'The region this server runs instances in: LOCAL_REGION on the server (us-east-1 when unset) chooses it.'
      }
      control={<RefreshButton query={query} />}
    >
      <LoadState query={query} loading="Loading..." failed="The regions could not be loaded." />
      {data && (
        <Stack component="ul" spacing={2} sx={{ m: 0, p: 0, listStyle: 'none' }}>
          {shown?.map((region) => (
            <RegionCard key={region.region} region={region} scheduler={data.scheduler} />
          ))}
        </Stack>
      )}
      {others.length > 0 && (
        <Typography variant="body2" color="text.secondary" sx={{ mt: 2 }}>
          Not offered to customers: {others.map((region) => region.label).join(', ')}.
        </Typography>
      )}
    </AdminSection>
  );
}
