import type { InstanceTypeName } from '@berth/openapi/rules';
import GridViewIcon from '@mui/icons-material/GridView';
import SearchIcon from '@mui/icons-material/Search';
import ViewListIcon from '@mui/icons-material/ViewList';
import {
  InputAdornment,
  Link,
  MenuItem,
  Stack,
  TextField,
  ToggleButton,
  ToggleButtonGroup,
  Typography,
} from '@mui/material';
import type { Instance } from '../../api/instances.queries.ts';
import type { InstanceLayout } from './instance-card.tsx';
import { APPLICATION_NAMES, hasCustomDomain } from './instance-catalog.ts';

// The search box and the filters of the instance list (filters are done in the browser), and the
// List/Grid switch.

/** All instances, or those of one application type (by the name instances carry). */
export type EnvironmentFilter = 'all' | InstanceTypeName;
export type DomainFilter = 'all' | 'with' | 'without';

/** The filter's labels where the type's name is too long for it. */
const SHORT_NAMES: Partial<Record<InstanceTypeName, string>> = { WordPress: 'WP' };

const ENVIRONMENTS: readonly { value: EnvironmentFilter; label: string }[] = [
  { value: 'all', label: 'All' },
  ...APPLICATION_NAMES.map((name) => ({ value: name, label: SHORT_NAMES[name] ?? name })),
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

/** The search box of the instance list (the page shows it above 9 instances and debounces the term). */
export function InstanceSearchBox({ value, onChange }: { value: string; onChange(value: string): void }) {
  return (
    <TextField
      value={value}
      onChange={(event) => onChange(event.target.value)}
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
  );
}

/** The Filters toolbar: how many match, Environment, Domain, Clear filters, and List/Grid. */
export function InstanceFilters({
  count,
  total,
  environment,
  onEnvironment,
  domain,
  onDomain,
  clearable,
  onClear,
  layout,
  onLayout,
}: {
  count: number;
  total: number;
  environment: EnvironmentFilter;
  onEnvironment(value: EnvironmentFilter): void;
  domain: DomainFilter;
  onDomain(value: DomainFilter): void;
  /** A filter or a search term is set. */
  clearable: boolean;
  onClear(): void;
  layout: InstanceLayout;
  onLayout(layout: InstanceLayout): void;
}) {
  return (
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
          onChange={(event) => onEnvironment(event.target.value as EnvironmentFilter)}
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
          onChange={(event) => onDomain(event.target.value as DomainFilter)}
          sx={{ width: 150 }}
        >
          {DOMAINS.map((option) => (
            <MenuItem key={option.value} value={option.value}>
              {option.label}
            </MenuItem>
          ))}
        </TextField>
        {clearable && (
          <Link component="button" type="button" variant="body2" onClick={onClear}>
            Clear filters
          </Link>
        )}
      </Stack>
      <ToggleButtonGroup
        exclusive
        size="small"
        value={layout}
        onChange={(_event, value: InstanceLayout | null) => value && onLayout(value)}
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
  );
}
