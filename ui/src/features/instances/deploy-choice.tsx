import { Card, CardActionArea, CardContent, Chip, Stack, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import type { InstanceCapability } from '../../api/instances.queries.ts';
import { availabilityOf, type TypeChoice } from './instance-catalog.ts';

/** One type to choose: disabled with the server's reason (or 'Soon') when it cannot be deployed. */
export function ChoiceCard({
  choice,
  capabilities,
  selected,
  onSelect,
}: {
  choice: TypeChoice;
  capabilities: readonly InstanceCapability[] | undefined;
  selected: boolean;
  onSelect(): void;
}) {
  const availability = availabilityOf(choice, capabilities);
  const key = choice.name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  const reason = !availability.available && availability.reason !== 'Soon' ? availability.reason : '';
  return (
    <Card
      sx={{
        height: '100%',
        borderColor: selected ? 'primary.main' : undefined,
        borderWidth: selected ? 2 : 1,
        opacity: availability.available ? 1 : 0.72,
      }}
    >
      <CardActionArea
        role="radio"
        aria-checked={selected}
        aria-labelledby={`choice-${key}-name`}
        aria-describedby={`choice-${key}-description${reason ? ` choice-${key}-reason` : ''}`}
        disabled={!availability.available}
        onClick={onSelect}
        sx={{ height: '100%' }}
      >
        <CardContent sx={{ p: 2.5 }}>
          <Stack direction="row" sx={{ alignItems: 'center', gap: 1, mb: 0.75 }}>
            <Typography id={`choice-${key}-name`} variant="h6" component="h3" sx={{ mr: 'auto' }}>
              {choice.name}
            </Typography>
            {availability.available
              ? selected && <Chip label="Selected" color="primary" size="small" />
              : availability.reason === 'Soon' && <Chip label="Soon" size="small" variant="outlined" />}
          </Stack>
          <Typography id={`choice-${key}-description`} variant="body2" color="text.secondary">
            {choice.description}
          </Typography>
          {reason && (
            <Typography
              id={`choice-${key}-reason`}
              variant="body2"
              sx={{ mt: 1, color: 'warning.main', fontWeight: 600 }}
            >
              {reason}
            </Typography>
          )}
        </CardContent>
      </CardActionArea>
    </Card>
  );
}

export function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <Card component="section" aria-labelledby={`${id}-title`}>
      <CardContent sx={{ p: { xs: 2.5, sm: 3 }, '&:last-child': { pb: { xs: 2.5, sm: 3 } } }}>
        <Typography id={`${id}-title`} variant="h6" component="h2" sx={{ mb: 2 }}>
          {title}
        </Typography>
        {children}
      </CardContent>
    </Card>
  );
}
