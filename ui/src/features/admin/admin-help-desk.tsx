import SearchIcon from '@mui/icons-material/Search';
import {
  Box,
  Button,
  Card,
  Grid,
  InputAdornment,
  List,
  ListItem,
  ListItemButton,
  MenuItem,
  Pagination,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { type FormEvent, useState } from 'react';
import { type Ticket, useAllTicketsQuery } from '../../api/help.queries.ts';
import type { TicketListParams } from '../../api/query-keys.ts';
import { LoadState } from '../../components/load-state.tsx';
import { RefreshButton } from '../../components/refresh-button.tsx';
import { CATEGORY_LABELS, formatTime, TicketStatusBadge } from '../get-help/ticket-status.tsx';
import { AdminTicketDetail } from './admin-ticket-detail.tsx';
import { TicketPromise } from './ticket-promise.tsx';

const TICKET_PAGE_SIZE = 20;
const STATUS_OPTIONS = ['', 'open', 'answered', 'closed'] as const;
const CATEGORY_OPTIONS = ['', 'general', 'technical', 'billing', 'feature', 'bug'] as const;
const SORT_OPTIONS = [
  { value: 'due', label: 'Due first' },
  { value: 'newest', label: 'Newest first' },
] as const;

type Filters = Pick<TicketListParams, 'q' | 'status' | 'category' | 'sort'>;
const NO_FILTERS: Filters = { q: '', status: '', category: '', sort: 'due' };

/** One select of the filter bar: its choices, each with what it shows. */
function FilterSelect<T extends string>({
  label,
  value,
  options,
  onChange,
}: {
  label: string;
  value: T;
  options: readonly { value: T; label: string }[];
  onChange: (value: T) => void;
}) {
  return (
    <TextField
      select
      label={label}
      value={value}
      onChange={(event) => onChange(event.target.value as T)}
      sx={{ flex: 1, minWidth: 140 }}
    >
      {options.map((option) => (
        <MenuItem key={option.value || 'all'} value={option.value}>
          {option.label}
        </MenuItem>
      ))}
    </TextField>
  );
}

function TicketRow({ ticket, selected, onSelect }: { ticket: Ticket; selected: boolean; onSelect(): void }) {
  return (
    <ListItem disablePadding sx={{ display: 'block' }}>
      <ListItemButton
        selected={selected}
        onClick={onSelect}
        aria-current={selected ? 'true' : undefined}
        sx={{ display: 'block', borderBottom: 1, borderColor: 'divider', py: 1.5 }}
      >
        <Stack direction="row" sx={{ gap: 1, alignItems: 'center', justifyContent: 'space-between' }}>
          <Typography sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}>{ticket.subject}</Typography>
          <TicketStatusBadge status={ticket.status} />
        </Stack>
        <TicketPromise ticket={ticket} />
        <Typography variant="body2" color="text.secondary" sx={{ overflowWrap: 'anywhere' }}>
          {formatTime(ticket.createdAt)} · {CATEGORY_LABELS[ticket.category] ?? ticket.category} ·{' '}
          {ticket.email}
        </Typography>
        <Typography
          variant="body2"
          sx={{
            mt: 0.5,
            display: '-webkit-box',
            WebkitLineClamp: 2,
            WebkitBoxOrient: 'vertical',
            overflow: 'hidden',
            overflowWrap: 'anywhere',
          }}
        >
          {ticket.message}
        </Typography>
      </ListItemButton>
    </ListItem>
  );
}

/**
 * The Help Desk tab (spec platform-area "Admin panel"): search, status and category filters applied
 * with Apply, a page of tickets with 'N results', and the selected ticket's detail beside it.
 */
export function AdminHelpDesk() {
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<Ticket | null>(null);
  const query = useAllTicketsQuery({ ...filters, page, limit: TICKET_PAGE_SIZE });
  const items = query.data?.items ?? [];
  // The freshest copy of the selected ticket (after a status change or an answer), else the one chosen.
  const current = selected && (items.find((t) => t.id === selected.id) ?? selected);

  const apply = (event: FormEvent) => {
    event.preventDefault();
    setFilters(draft);
    setPage(1);
  };

  return (
    <Stack spacing={3}>
      <Stack direction="row" sx={{ justifyContent: 'space-between', alignItems: 'center', gap: 2 }}>
        <Typography variant="h6" component="h2">
          Help Desk
        </Typography>
        <RefreshButton query={query} />
      </Stack>
      <Stack
        component="form"
        role="search"
        aria-label="Filter tickets"
        onSubmit={apply}
        direction={{ xs: 'column', md: 'row' }}
        sx={{ gap: 2, alignItems: { md: 'center' } }}
      >
        <TextField
          label="Search"
          placeholder="Subject, message, name or email"
          value={draft.q}
          onChange={(event) => setDraft({ ...draft, q: event.target.value })}
          sx={{ flex: 2 }}
          slotProps={{
            input: {
              startAdornment: (
                <InputAdornment position="start">
                  <SearchIcon aria-hidden />
                </InputAdornment>
              ),
            },
          }}
        />
        <FilterSelect
          label="Status"
          value={draft.status}
          options={STATUS_OPTIONS.map((status) => ({ value: status, label: status || 'All' }))}
          onChange={(status) => setDraft({ ...draft, status })}
        />
        <FilterSelect
          label="Category"
          value={draft.category}
          options={CATEGORY_OPTIONS.map((category) => ({ value: category, label: category || 'All' }))}
          onChange={(category) => setDraft({ ...draft, category })}
        />
        <FilterSelect
          label="Order"
          value={draft.sort}
          options={SORT_OPTIONS}
          onChange={(sort) => setDraft({ ...draft, sort })}
        />
        <Button type="submit" variant="contained">
          Apply
        </Button>
      </Stack>

      <Grid container spacing={3}>
        <Grid size={{ xs: 12, md: current ? 5 : 12 }}>
          <Card variant="outlined">
            <Box sx={{ px: 2, py: 1.5, borderBottom: 1, borderColor: 'divider' }}>
              <Typography variant="body2" color="text.secondary" role="status">
                {query.isPending ? 'Loading...' : `${query.data?.total ?? 0} results`}
              </Typography>
            </Box>
            <LoadState query={query} loading="Loading..." failed="Failed to load tickets" />
            {query.isSuccess && items.length === 0 && (
              <Typography color="text.secondary" sx={{ p: 3, textAlign: 'center' }}>
                No tickets found.
              </Typography>
            )}
            {items.length > 0 && (
              <List disablePadding aria-label="Tickets">
                {items.map((ticket) => (
                  <TicketRow
                    key={ticket.id}
                    ticket={ticket}
                    selected={ticket.id === current?.id}
                    onSelect={() => setSelected(ticket)}
                  />
                ))}
              </List>
            )}
            {(query.data?.pages ?? 1) > 1 && (
              <Box sx={{ display: 'flex', justifyContent: 'center', py: 1.5 }}>
                <Pagination
                  count={query.data?.pages ?? 1}
                  page={page}
                  onChange={(_event, value) => setPage(value)}
                  aria-label="Ticket pages"
                />
              </Box>
            )}
          </Card>
        </Grid>
        {current && (
          <Grid size={{ xs: 12, md: 7 }}>
            <AdminTicketDetail key={current.id} ticket={current} onClose={() => setSelected(null)} />
          </Grid>
        )}
      </Grid>
    </Stack>
  );
}
