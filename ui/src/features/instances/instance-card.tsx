import HttpsIcon from '@mui/icons-material/Https';
import PublicIcon from '@mui/icons-material/Public';
import StorageIcon from '@mui/icons-material/Storage';
import { Alert, Box, Card, CardContent, Chip, Divider, Link, Stack, Typography } from '@mui/material';
import { Link as RouterLink } from 'react-router';
import type { Instance } from '../../api/instances.queries.ts';
import { InstanceActions } from './instance-actions.tsx';
import { StatusChip, SuspendedBadge, TypeBadge } from './instance-badges.tsx';
import {
  formatDate,
  hasCustomDomain,
  isDatabase,
  regionLabel,
  SSL_LABELS,
  sslColor,
  VERIFICATION_LABELS,
  verificationColor,
} from './instance-catalog.ts';
import type { InstanceDialogKind } from './instance-dialogs.tsx';

export type InstanceLayout = 'list' | 'grid';

/** The URL with its 'Temporary URL' tag and an SSL icon for https; plain text while suspended. */
function UrlLine({ url, inactive, temporary }: { url: string; inactive: boolean; temporary: boolean }) {
  return (
    <Stack direction="row" sx={{ alignItems: 'center', gap: 0.75, minWidth: 0 }}>
      {url.startsWith('https://') && <HttpsIcon color="success" sx={{ fontSize: 16 }} aria-label="SSL" />}
      {inactive ? (
        <Typography variant="body2" noWrap>
          {url}
        </Typography>
      ) : (
        <Link href={url} target="_blank" rel="noopener noreferrer" variant="body2" noWrap>
          {url}
        </Link>
      )}
      {temporary && <Chip label="Temporary URL" size="small" variant="outlined" />}
    </Stack>
  );
}

/** The custom domain with an SSL icon coloured by its status, or 'No custom domain / Not configured'. */
function DomainBlock({ instance }: { instance: Instance }) {
  const custom = instance.customDomain;
  return (
    <Stack direction="row" sx={{ alignItems: 'center', gap: 0.75, minWidth: 0 }}>
      <PublicIcon sx={{ fontSize: 16, color: 'text.secondary' }} aria-hidden />
      {custom ? (
        <>
          <Typography variant="body2" noWrap>
            {custom.domain}
          </Typography>
          <HttpsIcon
            color={sslColor(custom.ssl.status)}
            sx={{ fontSize: 16 }}
            aria-label={SSL_LABELS[custom.ssl.status]}
            aria-hidden={false}
          />
          {custom.verification.status !== 'attached' && (
            <Chip
              label={VERIFICATION_LABELS[custom.verification.status]}
              size="small"
              color={verificationColor(custom.verification.status)}
              variant="outlined"
            />
          )}
        </>
      ) : (
        <>
          <Typography variant="body2" color="text.secondary">
            No custom domain
          </Typography>
          <Chip label="Not configured" size="small" variant="outlined" />
        </>
      )}
    </Stack>
  );
}

/**
 * One instance of the list: name (to its page), type badge, status, 'Suspended', URL or
 * engine, custom domain for applications, created date, region, and the buttons.
 */
export function InstanceCard({
  instance,
  layout,
  inactive,
  onOpenDialog,
}: {
  instance: Instance;
  layout: InstanceLayout;
  inactive: boolean;
  onOpenDialog(kind: InstanceDialogKind, instance: Instance): void;
}) {
  const database = isDatabase(instance);
  const titleId = `instance-${instance.id}-name`;
  const list = layout === 'list';

  const facts = (
    <Stack spacing={0.75} sx={{ minWidth: 0 }}>
      {database ? (
        <Stack direction="row" sx={{ alignItems: 'center', gap: 0.75 }}>
          <StorageIcon sx={{ fontSize: 16, color: 'text.secondary' }} aria-hidden />
          <Typography variant="body2">{instance.type} database</Typography>
        </Stack>
      ) : (
        instance.url && (
          <UrlLine url={instance.url} inactive={inactive} temporary={!hasCustomDomain(instance)} />
        )
      )}
      {!database && <DomainBlock instance={instance} />}
      <Typography variant="body2" color="text.secondary">
        {regionLabel(instance.region)} · Created {formatDate(instance.createdAt)}
      </Typography>
    </Stack>
  );

  return (
    <Card
      component="article"
      aria-labelledby={titleId}
      sx={{ height: '100%', display: 'flex', flexDirection: 'column' }}
    >
      <CardContent
        sx={{
          p: 2.5,
          flexGrow: 1,
          display: 'flex',
          flexDirection: list ? { xs: 'column', md: 'row' } : 'column',
          gap: 2,
          alignItems: list ? { md: 'center' } : undefined,
        }}
      >
        <Box sx={{ minWidth: 0, flex: list ? { md: '0 0 34%' } : undefined }}>
          <Stack direction="row" sx={{ alignItems: 'flex-start', gap: 1, mb: 1 }}>
            <Typography id={titleId} variant="h6" component="h2" sx={{ mr: 'auto', minWidth: 0 }} noWrap>
              <Link component={RouterLink} to={`/instances/${instance.id}`} color="inherit" underline="hover">
                {instance.name}
              </Link>
            </Typography>
            {!list && <StatusChip status={instance.status} />}
          </Stack>
          <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap' }}>
            <TypeBadge instance={instance} />
            {list && <StatusChip status={instance.status} />}
            <SuspendedBadge instance={instance} inactive={inactive} />
          </Stack>
        </Box>
        <Box sx={{ minWidth: 0, flexGrow: 1 }}>{facts}</Box>
        {instance.status === 'error' && instance.statusMessage && (
          <Alert severity="error" variant="outlined" sx={{ py: 0 }}>
            {instance.statusMessage}
          </Alert>
        )}
        {list && (
          <Box sx={{ flex: { md: '0 0 auto' } }}>
            <InstanceActions instance={instance} inactive={inactive} onOpenDialog={onOpenDialog} />
          </Box>
        )}
      </CardContent>
      {!list && (
        <>
          <Divider />
          <Box sx={{ px: 2, py: 1.25 }}>
            <InstanceActions instance={instance} inactive={inactive} onOpenDialog={onOpenDialog} />
          </Box>
        </>
      )}
    </Card>
  );
}
