// Before Scalar's chunk loads (it is this page's lazy part): Zod inside it is told not to try eval.
import './zod-without-eval.ts';
import { Box, CircularProgress, Container, Link, Stack, Typography } from '@mui/material';
import { Suspense } from 'react';
import { Link as RouterLink } from 'react-router';
import { useIntegrations } from '../../platform/integrations.ts';
import { usePlatform } from '../../platform/platform-context.ts';
import { useColorMode } from '../../theme/use-color-mode.ts';

/**
 * The full API reference, /api-reference, rendered from the public OpenAPI document:
 * authentication, base URL, the error table and rate limits (the document's introduction), then every
 * operation by section (Instance, Database, Files and Database Access, Domain, SSL, Backup Management).
 */
export function ApiReferencePage() {
  const { mode } = useColorMode();
  const { apiBaseUrl } = usePlatform();
  const { ApiReferenceViewer } = useIntegrations();
  return (
    <Box>
      <Container maxWidth="lg" sx={{ pt: { xs: 3, md: 4 }, pb: 1 }}>
        <Typography variant="h4" component="h1">
          API Reference
        </Typography>
        <Stack direction="row" spacing={3} useFlexGap sx={{ mt: 1, flexWrap: 'wrap' }}>
          <Link component={RouterLink} to="/api-access">
            Get an API key
          </Link>
          <Link component={RouterLink} to="/instances/new">
            Deploy from the dashboard
          </Link>
          <Link component={RouterLink} to="/api/docs">
            Quick start
          </Link>
          <Link href={`${apiBaseUrl}/api/v1/openapi.json`}>OpenAPI document</Link>
        </Stack>
      </Container>
      <Suspense
        fallback={
          <Stack role="status" spacing={2} sx={{ alignItems: 'center', py: 6 }}>
            <CircularProgress aria-hidden />
            <Typography color="text.secondary">Loading the API reference...</Typography>
          </Stack>
        }
      >
        <ApiReferenceViewer
          theme={mode}
          // On the web, this page's own server (unknown where the server renders the page).
          serverUrl={apiBaseUrl || (typeof window === 'undefined' ? '' : window.location.origin)}
        />
      </Suspense>
    </Box>
  );
}
