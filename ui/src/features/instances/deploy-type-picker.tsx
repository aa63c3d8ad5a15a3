import {
  Alert,
  Button,
  CircularProgress,
  FormHelperText,
  Grid,
  Stack,
  ToggleButton,
  ToggleButtonGroup,
} from '@mui/material';
import type { UseQueryResult } from '@tanstack/react-query';
import type { InstanceCapability } from '../../api/instances.queries.ts';
import { ChoiceCard } from './deploy-choice.tsx';
import { CATEGORY_LABELS, type Category, TYPE_CHOICES } from './instance-catalog.ts';

/**
 * "What to deploy" of the deploy page: the category toggle, then the types of that category as cards
 * (the ones the server cannot deploy disabled with its reason), and the form's type error under them.
 */
export function DeployTypePicker({
  category,
  onCategory,
  capabilities,
  type,
  onType,
  typeError,
}: {
  category: Category;
  onCategory(next: Category): void;
  capabilities: UseQueryResult<InstanceCapability[]>;
  type: string;
  onType(type: string): void;
  typeError: string | undefined;
}) {
  return (
    <>
      <ToggleButtonGroup
        exclusive
        color="primary"
        value={category}
        onChange={(_event, value: Category | null) => value && onCategory(value)}
        aria-label="Category"
        sx={{ mb: 2.5 }}
      >
        {(Object.keys(CATEGORY_LABELS) as Category[]).map((value) => (
          <ToggleButton key={value} value={value} sx={{ px: 3 }}>
            {CATEGORY_LABELS[value]}
          </ToggleButton>
        ))}
      </ToggleButtonGroup>

      {capabilities.isPending ? (
        <Stack role="status" sx={{ alignItems: 'center', py: 4 }}>
          <CircularProgress aria-label="Loading instance types" />
        </Stack>
      ) : capabilities.isError ? (
        <Alert
          severity="error"
          action={
            <Button color="inherit" size="small" onClick={() => void capabilities.refetch()}>
              Retry
            </Button>
          }
        >
          We could not load what this server can deploy.
        </Alert>
      ) : (
        <Grid
          container
          spacing={2}
          role="radiogroup"
          aria-label={category === 'database' ? 'Database' : 'Application'}
          aria-describedby={typeError ? 'type-error' : undefined}
        >
          {TYPE_CHOICES[category].map((choice) => (
            <Grid key={choice.name} size={{ xs: 12, sm: 6 }}>
              <ChoiceCard
                choice={choice}
                capabilities={capabilities.data}
                selected={choice.type !== undefined && choice.type === type}
                onSelect={() => choice.type && onType(choice.type)}
              />
            </Grid>
          ))}
        </Grid>
      )}
      {typeError && (
        <FormHelperText id="type-error" error sx={{ mt: 1.5, fontSize: '0.875rem' }}>
          {typeError}
        </FormHelperText>
      )}
    </>
  );
}
