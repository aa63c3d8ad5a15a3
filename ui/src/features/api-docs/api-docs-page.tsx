import publicApi from '@berth/openapi/openapi.v1.json';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Chip,
  Container,
  Grid,
  Link,
  Stack,
  Typography,
} from '@mui/material';
import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router';
import { usePlatform } from '../../platform/platform-context.ts';
import { hasApiAccess } from '../api-access/has-api-access.ts';
import { useSession } from '../session/use-session.ts';

type Method = 'GET' | 'POST' | 'DELETE';

interface Endpoint {
  method: Method;
  path: string;
  summary: string;
  description: string;
}

interface Operation {
  summary?: string;
  description?: string;
}

/** The four operations the short page shows; everything else is in the full reference (/api-reference). */
const DOC_OPERATIONS: readonly [Method, string][] = [
  ['GET', '/api/v1/instances'],
  ['POST', '/api/v1/instances'],
  ['GET', '/api/v1/instances/{instanceId}'],
  ['DELETE', '/api/v1/instances/{instanceId}'],
];

/**
 * The four endpoint cards, read from the public OpenAPI document the server serves, so
 * the page documents only calls that exist, in the words of the reference.
 */
export const DOC_ENDPOINTS: readonly Endpoint[] = DOC_OPERATIONS.map(([method, path]) => {
  const item = (publicApi.paths as Record<string, Record<string, Operation>>)[path];
  const operation = item?.[method.toLowerCase()];
  if (!operation?.summary) throw new Error(`${method} ${path} is not in openapi.v1.json`);
  return {
    method,
    path: path.slice('/api/v1'.length),
    summary: operation.summary,
    description: operation.description ?? '',
  };
});

const METHOD_COLOR = { GET: 'success', POST: 'primary', DELETE: 'error' } as const;

function Code({ children }: { children: ReactNode }) {
  return (
    <Box
      component="pre"
      sx={{
        m: 0,
        p: 2,
        borderRadius: 1,
        // Wrapped rather than scrolled: a scrolling region would need keyboard focus (axe).
        whiteSpace: 'pre-wrap',
        overflowWrap: 'anywhere',
        bgcolor: 'action.hover',
        border: 1,
        borderColor: 'divider',
        fontSize: '0.875rem',
        fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
      }}
    >
      <code>{children}</code>
    </Box>
  );
}

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <Box component="section" aria-labelledby={id} sx={{ mb: 5 }}>
      <Typography id={id} variant="h5" component="h2" sx={{ mb: 1.5 }}>
        {title}
      </Typography>
      {children}
    </Box>
  );
}

/**
 * The short API documentation, /api/docs (platform-area: short API documentation page): Pro API
 * access, authentication, base URL, four endpoints, response format and rate limits.
 */
export function ApiDocsPage() {
  const { user } = useSession();
  const { apiBaseUrl } = usePlatform();
  const origin = apiBaseUrl || window.location.origin;
  const baseUrl = `${origin}/api/v1`;
  const isPro = hasApiAccess(user);

  return (
    <Container maxWidth="md" sx={{ py: { xs: 4, md: 6 } }}>
      <Stack direction="row" spacing={3} sx={{ alignItems: 'center', mb: 4 }}>
        <Link
          component={RouterLink}
          to="/"
          underline="hover"
          sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.5, fontWeight: 600 }}
        >
          <ArrowBackIcon fontSize="small" aria-hidden />
          Back to Home
        </Link>
        {user && (
          <Link component={RouterLink} to="/dashboard" underline="hover" sx={{ fontWeight: 600 }}>
            Dashboard
          </Link>
        )}
      </Stack>

      <Typography variant="h3" component="h1" sx={{ fontSize: { xs: '2rem', md: '2.75rem' }, mb: 1.5 }}>
        Berth API
      </Typography>
      <Typography variant="h6" component="p" color="text.secondary" sx={{ fontWeight: 400, mb: 5 }}>
        Deploy and manage instances from your own scripts and tools.
      </Typography>

      <Section id="api-pro-access" title="Pro API access">
        <Typography sx={{ mb: 2 }}>
          Programmatic access is part of the Pro plan. Every request is made with an API key that belongs to
          your account and acts with its permissions.
        </Typography>
        {isPro ? (
          <Alert
            severity="success"
            action={
              <Button component={RouterLink} to="/api-access" color="inherit" size="small">
                Manage key
              </Button>
            }
          >
            Your Pro plan includes API access. Your API key is managed on the API Access page.
          </Alert>
        ) : (
          <Alert
            severity="info"
            action={
              <Button component={RouterLink} to="/pricing" color="inherit" size="small">
                Upgrade
              </Button>
            }
          >
            API access requires a Pro plan subscription.
          </Alert>
        )}
      </Section>

      <Section id="api-authentication" title="Authentication">
        <Typography sx={{ mb: 2 }}>
          Take your API key from the API Access page and send it with every request, either in the X-API-Key
          header or as a bearer token. A missing or wrong key answers 401; a key of an account without Pro
          answers 403.
        </Typography>
        <Code>{`curl ${baseUrl}/instances \\\n  -H "X-API-Key: YOUR_API_KEY"`}</Code>
      </Section>

      <Section id="api-base-url" title="Base URL">
        <Typography sx={{ mb: 2 }}>All paths below are relative to:</Typography>
        <Code>{baseUrl}</Code>
      </Section>

      <Section id="api-endpoints" title="Endpoints">
        <Grid container spacing={2}>
          {DOC_ENDPOINTS.map((endpoint) => (
            <Grid key={`${endpoint.method} ${endpoint.path}`} size={{ xs: 12, sm: 6 }}>
              <Card sx={{ height: '100%' }}>
                <CardContent>
                  <Stack direction="row" spacing={1} sx={{ alignItems: 'center', mb: 1 }}>
                    <Chip label={endpoint.method} color={METHOD_COLOR[endpoint.method]} size="small" />
                    <Typography
                      component="h3"
                      sx={{ fontFamily: 'monospace', fontWeight: 600, wordBreak: 'break-all' }}
                    >
                      {endpoint.path}
                    </Typography>
                  </Stack>
                  <Typography sx={{ fontWeight: 600, mb: 0.5 }}>{endpoint.summary}</Typography>
                  {endpoint.description && (
                    <Typography variant="body2" color="text.secondary">
                      {endpoint.description}
                    </Typography>
                  )}
                </CardContent>
              </Card>
            </Grid>
          ))}
        </Grid>
        <Typography sx={{ mt: 2 }}>
          Passwords, access credentials, custom domains, SSL and backups are in the{' '}
          <Link component={RouterLink} to="/api-reference">
            full API reference
          </Link>
          .
        </Typography>
      </Section>

      <Section id="api-response-format" title="Response Format">
        <Typography sx={{ mb: 2 }}>Answers are JSON. A success carries the data in an envelope:</Typography>
        <Code>{`{\n  "success": true,\n  "message": "Instance deployment initiated",\n  "data": { "instance": { "id": "…", "name": "orders-db", "type": "MySQL", "status": "deploying" } }\n}`}</Code>
        <Typography sx={{ my: 2 }}>An error names what went wrong:</Typography>
        <Code>{`{\n  "error": "forbidden",\n  "message": "API access requires Pro plan subscription"\n}`}</Code>
      </Section>

      <Section id="api-rate-limits" title="Rate Limits">
        <Typography sx={{ mb: 1 }}>
          Each key may make 150 requests per minute. Every answer carries the headers RateLimit-Limit,
          RateLimit-Remaining and RateLimit-Reset (seconds until the window starts again).
        </Typography>
        <Typography>
          A request over the limit answers 429 Too Many Requests with the message "Rate limit exceeded. Please
          try again later." and a Retry-After header.
        </Typography>
      </Section>
    </Container>
  );
}
