import AddIcon from '@mui/icons-material/Add';
import { Alert, Box, Button, CircularProgress, Container, Stack, Typography } from '@mui/material';
import { useEffect, useRef, useState } from 'react';
import { Link as RouterLink } from 'react-router';
import { FILTER_PAGE_SIZE, INSTANCE_PAGE_SIZE, useInstancesQuery } from '../../api/instances.queries.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import { useDebouncedValue } from '../../components/use-debounced-value.ts';
import { useCurrentSubscription } from '../subscription/use-current-subscription.ts';
import { DeletedInstanceBackups } from './deleted-instance-backups.tsx';
import { InstanceDialogs, useInstanceDialogs } from './instance-dialogs.tsx';
import {
  type DomainFilter,
  type EnvironmentFilter,
  InstanceFilters,
  InstanceSearchBox,
  matchesFilters,
} from './instance-filters.tsx';
import { EmptyState, InstanceCardList, Pagination } from './instance-list-views.tsx';
import { useStoredLayout } from './use-stored-layout.ts';

/** The search box shows above 9 instances; the term is debounced 300 ms. */
export const SEARCH_THRESHOLD = 9;
export const SEARCH_DEBOUNCE_MS = 300;

/**
 * The instance list, /instances: search above 9 instances, filters (done in
 * the browser on up to 1000 instances), List/Grid, pages of 24, the cards and their dialogs. Statuses
 * change live through the notification stream.
 */
export function InstancesPage() {
  const { inactive } = useCurrentSubscription();
  const toast = useToast();
  const dialogs = useInstanceDialogs();
  const [layout, setLayout] = useStoredLayout();
  const [searchInput, setSearchInput] = useState('');
  const search = useDebouncedValue(searchInput.trim(), SEARCH_DEBOUNCE_MS);
  const [environment, setEnvironment] = useState<EnvironmentFilter>('all');
  const [domain, setDomain] = useState<DomainFilter>('all');
  // The page belongs to a search term: a new term starts again at page 1.
  const [paging, setPaging] = useState({ search: '', page: 1 });
  const page = paging.search === search ? paging.page : 1;
  const setPage = (next: number) => setPaging({ search, page: next });

  const filtering = environment !== 'all' || domain !== 'all';
  const query = useInstancesQuery(
    filtering ? { page: 1, limit: FILTER_PAGE_SIZE, search } : { page, limit: INSTANCE_PAGE_SIZE, search },
  );

  const failed = query.isError;
  useEffect(() => {
    if (failed) toast.error('Failed to load instances');
  }, [failed, toast]);

  const data = query.data;
  const total = data?.total ?? 0;
  const loaded = data?.instances ?? [];
  const matching = filtering ? loaded.filter((i) => matchesFilters(i, environment, domain)) : loaded;
  const count = filtering ? matching.length : total;
  const pages = filtering ? Math.max(1, Math.ceil(count / INSTANCE_PAGE_SIZE)) : (data?.pages ?? 1);
  const currentPage = Math.min(page, pages);
  const shown = filtering
    ? matching.slice((currentPage - 1) * INSTANCE_PAGE_SIZE, currentPage * INSTANCE_PAGE_SIZE)
    : loaded;
  const first = (currentPage - 1) * INSTANCE_PAGE_SIZE + 1;

  // A page that no longer exists (its last instance deleted) gives way to the last one.
  const serverPages = data?.pages;
  useEffect(() => {
    if (!filtering && serverPages !== undefined && page > serverPages)
      setPaging({ search, page: serverPages });
  }, [filtering, serverPages, page, search]);

  // While a new answer loads, the box stays as it was (it must not vanish under the typing user).
  const searchShown = useRef(false);
  const showSearch =
    searchInput !== '' ||
    search !== '' ||
    (query.isPlaceholderData ? searchShown.current : total > SEARCH_THRESHOLD);
  useEffect(() => {
    searchShown.current = showSearch;
  });

  const changeFilter = (apply: () => void) => {
    apply();
    setPage(1);
  };
  const clearFilters = () => {
    setEnvironment('all');
    setDomain('all');
    setSearchInput('');
    setPage(1);
  };

  return (
    <Container maxWidth="lg" sx={{ py: { xs: 3, sm: 5 } }}>
      <Stack
        direction={{ xs: 'column', sm: 'row' }}
        sx={{ justifyContent: 'space-between', alignItems: { sm: 'center' }, gap: 2, mb: 3 }}
      >
        <Box>
          <Typography variant="h4" component="h1">
            Instances
          </Typography>
          <Typography color="text.secondary" sx={{ mt: 0.5 }}>
            Your applications and databases.
          </Typography>
        </Box>
        <Button component={RouterLink} to="/instances/new" variant="contained" startIcon={<AddIcon />}>
          Deploy New Instance
        </Button>
      </Stack>

      {inactive && (
        <Alert
          severity="error"
          variant="filled"
          sx={{ mb: 3 }}
          action={
            <Button component={RouterLink} to="/pricing" color="inherit" size="small">
              View plans
            </Button>
          }
        >
          Subscription inactive — instances suspended
        </Alert>
      )}

      {showSearch && <InstanceSearchBox value={searchInput} onChange={setSearchInput} />}

      {total > 0 && (
        <InstanceFilters
          count={count}
          total={total}
          environment={environment}
          onEnvironment={(value) => changeFilter(() => setEnvironment(value))}
          domain={domain}
          onDomain={(value) => changeFilter(() => setDomain(value))}
          clearable={filtering || searchInput !== ''}
          onClear={clearFilters}
          layout={layout}
          onLayout={setLayout}
        />
      )}

      {query.isPending ? (
        <Stack role="status" spacing={2} sx={{ alignItems: 'center', py: 8 }}>
          <CircularProgress aria-hidden />
          <Typography color="text.secondary">Loading instances...</Typography>
        </Stack>
      ) : shown.length === 0 ? (
        data && <EmptyState firstTime={total === 0 && search === '' && !filtering} />
      ) : (
        <InstanceCardList instances={shown} layout={layout} inactive={inactive} onOpenDialog={dialogs.open} />
      )}

      {pages > 1 && shown.length > 0 && (
        <Pagination
          page={currentPage}
          pages={pages}
          first={first}
          last={first + shown.length - 1}
          count={count}
          onPage={setPage}
        />
      )}

      <DeletedInstanceBackups inactive={inactive} />

      <InstanceDialogs dialogs={dialogs} inactive={inactive} />
    </Container>
  );
}
