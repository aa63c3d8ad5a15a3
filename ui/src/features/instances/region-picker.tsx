import { Box, Button, Typography } from '@mui/material';
import type { RegionAvailability } from '../../api/instances.queries.ts';
import { REGIONS, type RegionId, regionNotes, regionOffered } from './instance-catalog.ts';

/** The deploy page's Region buttons: the regions this server does not place instances in are disabled. */
export function RegionPicker({
  regions,
  value,
  onChange,
}: {
  regions: readonly RegionAvailability[] | undefined;
  value: string;
  onChange(region: RegionId): void;
}) {
  return (
    <Box>
      <Typography id="region-label" variant="subtitle2" sx={{ mb: 1 }}>
        Region
      </Typography>
      <Box
        role="group"
        aria-labelledby="region-label"
        sx={{
          display: 'grid',
          gridTemplateColumns: { xs: 'repeat(2, 1fr)', sm: 'repeat(3, 1fr)', md: 'repeat(4, 1fr)' },
          gap: 1,
        }}
      >
        {REGIONS.map((region) => {
          const selected = value === region.id;
          const offered = regionOffered(regions, region.id);
          return (
            <Button
              key={region.id}
              variant={selected ? 'contained' : 'outlined'}
              color={selected ? 'primary' : 'inherit'}
              aria-pressed={selected}
              disabled={!offered}
              onClick={() => onChange(region.id)}
              sx={{
                flexDirection: 'column',
                alignItems: 'flex-start',
                textAlign: 'left',
                py: 1,
                borderColor: selected ? undefined : 'divider',
              }}
            >
              <Box component="span" sx={{ lineHeight: 1.3 }}>
                {region.label}
              </Box>
              <Box component="span" sx={{ fontSize: '0.75rem', fontWeight: 400, opacity: 0.8 }}>
                {region.id}
              </Box>
            </Button>
          );
        })}
      </Box>
      {regionNotes(regions).map((note) => (
        <Typography key={note} variant="body2" color="text.secondary" sx={{ mt: 1 }}>
          {note}
        </Typography>
      ))}
    </Box>
  );
}
