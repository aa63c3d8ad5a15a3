import AddIcon from '@mui/icons-material/Add';
import GridViewIcon from '@mui/icons-material/GridView';
import SearchIcon from '@mui/icons-material/Search';
import ViewListIcon from '@mui/icons-material/ViewList';
import {
  Alert,
  Box,
  Button,
  Card,
  CircularProgress,
  Container,
  Grid,
  InputAdornment,
  Link,
  MenuItem,
  Stack,
  TextField,
  ToggleButton,
  ToggleButtonGroup,
  Typography,
} from '@mui/material';
import { useEffect, useRef, useState } from 'react';
import { Link as RouterLink } from 'react-router';
import {
  FILTER_PAGE_SIZE,
  INSTANCE_PAGE_SIZE,
  type Instance,
  useInstancesQuery,
} from '../../api/instances.queries.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import { useDebouncedValue } from '../../components/use-debounced-value.ts';
import { useCurrentSubscription } from '../subscription/use-current-subscription.ts';
import { InstanceCard, type InstanceLayout } from './instance-card.tsx';
import { hasCustomDomain } from './instance-catalog.ts';
import { InstanceDialogs, useInstanceDialogs } from './instance-dialogs.tsx';
import { useStoredLayout } from './use-stored-layout.ts';

/** The search box shows above 9 instances; the term is debounced 300 ms. */
export const SEARCH_THRESHOLD = 9;
export const SEARCH_DEBOUNCE_MS = 300;

export type EnvironmentFilter = 'all' | 'WordPress' | 'n8n';
export type DomainFilter = 'all' | 'with' | 'without';

const ENVIRONMENTS: readonly { value: EnvironmentFilter; label: string }[] = [
  { value: 'all', label: 'All' },
  { value: 'WordPress', label: 'WP' },
  { value: 'n8n', label: 'n8n' },
];

const DOMAINS: readonly { value: DomainFilter; label: string }[] = [
  { value: 'all', label: 'All' },
  { value: 'with', label: 'Has domain' },
  { value: 'without', label: 'No domain' },
];

export function matchesFilters(instance: Instance, environment: EnvironmentFilter, domain: DomainFilter) {
  if (environment !== 'all' && instance.type !== environment) return false;
  if (domain === 'with') return hasCustomDomain(instance);
  if (domain === 'without') return !hasCustomDomain(instance);
  return true;
}

function EmptyState({ firstTime }: { firstTime: boolean }) {
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

function Pagination({
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

      {showSearch && (
        <TextField
          value={searchInput}
          onChange={(event) => setSearchInput(event.target.value)}
          placeholder="Search instances by name..."
          size="small"
          sx={{ mb: 2 }}
          slotProps={{
            htmlInput: { 'aria-label': 'Search instances', maxLength: 200 },
            input: {
              startAdornment: (
                <InputAdornment position="start">
                  <SearchIcon fontSize="small" />
                </InputAdornment>
              ),
            },
          }}
        />
      )}

      {total > 0 && (
        <Stack
          role="toolbar"
          aria-label="Filters"
          direction={{ xs: 'column', md: 'row' }}
          sx={{ alignItems: { md: 'center' }, gap: 2, mb: 3 }}
        >
          <Typography variant="body2" color="text.secondary" sx={{ minWidth: 120 }}>
            Showing {count} of {total}
          </Typography>
          <Stack direction="row" sx={{ gap: 1.5, alignItems: 'center', flexWrap: 'wrap' }}>
            <TextField
              select
              size="small"
              label="Environment"
              value={environment}
              onChange={(event) =>
                changeFilter(() => setEnvironment(event.target.value as EnvironmentFilter))
              }
              sx={{ width: 150 }}
            >
              {ENVIRONMENTS.map((option) => (
                <MenuItem key={option.value} value={option.value}>
                  {option.label}
                </MenuItem>
              ))}
            </TextField>
            <TextField
              select
              size="small"
              label="Domain"
              value={domain}
              onChange={(event) => changeFilter(() => setDomain(event.target.value as DomainFilter))}
              sx={{ width: 150 }}
            >
              {DOMAINS.map((option) => (
                <MenuItem key={option.value} value={option.value}>
                  {option.label}
                </MenuItem>
              ))}
            </TextField>
            {(filtering || searchInput !== '') && (
              <Link component="button" type="button" variant="body2" onClick={clearFilters}>
                Clear filters
              </Link>
            )}
          </Stack>
          <ToggleButtonGroup
            exclusive
            size="small"
            value={layout}
            onChange={(_event, value: InstanceLayout | null) => value && setLayout(value)}
            aria-label="View"
            sx={{ ml: { md: 'auto' } }}
          >
            <ToggleButton value="list" sx={{ gap: 0.75, px: 1.5 }}>
              <ViewListIcon fontSize="small" />
              List
            </ToggleButton>
            <ToggleButton value="grid" sx={{ gap: 0.75, px: 1.5 }}>
              <GridViewIcon fontSize="small" />
              Grid
            </ToggleButton>
          </ToggleButtonGroup>
        </Stack>
      )}

      {query.isPending ? (
        <Stack role="status" spacing={2} sx={{ alignItems: 'center', py: 8 }}>
          <CircularProgress aria-hidden />
          <Typography color="text.secondary">Loading instances...</Typography>
        </Stack>
      ) : shown.length === 0 ? (
        data && <EmptyState firstTime={total === 0 && search === '' && !filtering} />
      ) : layout === 'grid' ? (
        <Grid container spacing={2.5}>
          {shown.map((instance) => (
            <Grid key={instance.id} size={{ xs: 12, sm: 6, lg: 4 }}>
              <InstanceCard
                instance={instance}
                layout="grid"
                inactive={inactive}
                onOpenDialog={dialogs.open}
              />
            </Grid>
          ))}
        </Grid>
      ) : (
        <Stack spacing={1.5}>
          {shown.map((instance) => (
            <InstanceCard
              key={instance.id}
              instance={instance}
              layout="list"
              inactive={inactive}
              onOpenDialog={dialogs.open}
            />
          ))}
        </Stack>
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

      <InstanceDialogs dialogs={dialogs} inactive={inactive} />
    </Container>
  );
}
