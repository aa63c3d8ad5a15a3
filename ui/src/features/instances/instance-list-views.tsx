import AddIcon from '@mui/icons-material/Add';
import { Button, Card, Grid, Stack, Typography } from '@mui/material';
import { Link as RouterLink } from 'react-router';
import type { Instance } from '../../api/instances.queries.ts';
import { InstanceCard, type InstanceLayout } from './instance-card.tsx';
import type { InstanceDialogKind } from './instance-dialogs.tsx';

// The parts of the instance list: its cards (grid or list), the empty state and the pages.

/** The instances of a page as cards, three a row in the grid or one a row in the list. */
export function InstanceCardList({
  instances,
  layout,
  inactive,
  onOpenDialog,
}: {
  instances: readonly Instance[];
  layout: InstanceLayout;
  inactive: boolean;
  onOpenDialog(kind: InstanceDialogKind, instance: Instance): void;
}) {
  return layout === 'grid' ? (
    <Grid container spacing={2.5}>
      {instances.map((instance) => (
        <Grid key={instance.id} size={{ xs: 12, sm: 6, lg: 4 }}>
          <InstanceCard instance={instance} layout="grid" inactive={inactive} onOpenDialog={onOpenDialog} />
        </Grid>
      ))}
    </Grid>
  ) : (
    <Stack spacing={1.5}>
      {instances.map((instance) => (
        <InstanceCard
          key={instance.id}
          instance={instance}
          layout="list"
          inactive={inactive}
          onOpenDialog={onOpenDialog}
        />
      ))}
    </Stack>
  );
}

export function EmptyState({ firstTime }: { firstTime: boolean }) {
  return (
    <Card sx={{ py: 6, px: 3, textAlign: 'center' }}>
      <Typography variant="h6" component="p">
        No instances found
      </Typography>
      <Typography color="text.secondary" sx={{ mt: 0.5 }}>
        {firstTime
          ? 'Deploy a database or an application and it shows up here.'
          : 'Try another search or clear the filters.'}
      </Typography>
      {firstTime && (
        <Button
          component={RouterLink}
          to="/instances/new"
          variant="contained"
          startIcon={<AddIcon />}
          sx={{ mt: 3 }}
        >
          Deploy New Instance
        </Button>
      )}
    </Card>
  );
}

export function Pagination({
  page,
  pages,
  first,
  last,
  count,
  onPage,
}: {
  page: number;
  pages: number;
  first: number;
  last: number;
  count: number;
  onPage(page: number): void;
}) {
  return (
    <Stack
      component="nav"
      aria-label="Pagination"
      direction={{ xs: 'column', sm: 'row' }}
      sx={{ alignItems: 'center', justifyContent: 'space-between', gap: 1.5, mt: 3 }}
    >
      <Typography variant="body2" color="text.secondary">
        Showing {first}–{last} of {count}
      </Typography>
      <Stack direction="row" sx={{ alignItems: 'center', gap: 1.5 }}>
        <Button variant="outlined" size="small" disabled={page <= 1} onClick={() => onPage(page - 1)}>
          Previous
        </Button>
        <Typography variant="body2">
          Page {page} of {pages}
        </Typography>
        <Button variant="outlined" size="small" disabled={page >= pages} onClick={() => onPage(page + 1)}>
          Next
        </Button>
      </Stack>
    </Stack>
  );
}
