import ExtensionIcon from '@mui/icons-material/Extension';
import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import RefreshIcon from '@mui/icons-material/Refresh';
import { Alert, Avatar, Box, Button, CircularProgress, Grid, Link, Stack, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { addonKeys } from '../../api/query-keys.ts';
import { usePlatform } from '../../platform/platform-context.ts';
import { ADDONS_FAILED, fetchAddons, groupAddons, type WordPressAddon } from './wordpress-addons.ts';

/** An add-on's logo; a broken image falls back to an icon. */
function AddonLogo({ addon }: { addon: WordPressAddon }) {
  const [broken, setBroken] = useState(false);
  return (
    <Avatar
      variant="rounded"
      src={broken || !addon.logo ? undefined : addon.logo}
      alt=""
      slotProps={{ img: { onError: () => setBroken(true), loading: 'lazy' } }}
      sx={{ width: 40, height: 40, bgcolor: 'action.selected', color: 'text.secondary' }}
    >
      <ExtensionIcon data-testid="addon-logo-fallback" />
    </Avatar>
  );
}

/**
 * Add-ons: the static list of the web app, grouped by category, loaded without a cache
 * within 7 s; a failure offers Retry and Reload.
 */
export function AddonsTab() {
  const platform = usePlatform();
  const origin = platform.kind === 'web' ? window.location.origin : platform.apiBaseUrl;
  const addons = useQuery({
    queryKey: addonKeys.all,
    queryFn: () => fetchAddons(`${origin}/wp-addons.json`),
    retry: false,
    staleTime: 0,
    gcTime: 0,
  });

  if (addons.isPending)
    return (
      <Stack role="status" sx={{ alignItems: 'center', py: 3 }}>
        <CircularProgress aria-label="Loading add-ons" />
      </Stack>
    );
  if (addons.isError)
    return (
      <Alert
        severity="warning"
        action={
          <Stack direction="row" sx={{ gap: 1 }}>
            <Button
              color="inherit"
              size="small"
              startIcon={<RefreshIcon />}
              onClick={() => void addons.refetch()}
            >
              Retry
            </Button>
            <Button color="inherit" size="small" onClick={() => window.location.reload()}>
              Reload
            </Button>
          </Stack>
        }
      >
        {ADDONS_FAILED}
      </Alert>
    );
  return (
    <Stack spacing={3}>
      {groupAddons(addons.data).map(([category, entries]) => (
        <Box key={category} component="section" aria-label={category}>
          <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 700, mb: 1 }}>
            {category}
          </Typography>
          <Grid container spacing={1.5}>
            {entries.map((addon) => (
              <Grid key={addon.slug} size={{ xs: 12, sm: 6 }}>
                <Stack
                  direction="row"
                  sx={{
                    gap: 1.5,
                    p: 1.5,
                    border: 1,
                    borderColor: 'divider',
                    borderRadius: 1,
                    height: '100%',
                  }}
                >
                  <AddonLogo addon={addon} />
                  <Box sx={{ minWidth: 0 }}>
                    <Link
                      href={addon.url}
                      target="_blank"
                      rel="noopener noreferrer"
                      onClick={(event) => {
                        event.preventDefault();
                        platform.openExternal(addon.url);
                      }}
                      sx={{ fontWeight: 600, display: 'inline-flex', alignItems: 'center', gap: 0.5 }}
                    >
                      {addon.name}
                      <OpenInNewIcon sx={{ fontSize: 14 }} aria-hidden />
                    </Link>
                    <Typography variant="body2" color="text.secondary">
                      {addon.description}
                    </Typography>
                  </Box>
                </Stack>
              </Grid>
            ))}
          </Grid>
        </Box>
      ))}
    </Stack>
  );
}
