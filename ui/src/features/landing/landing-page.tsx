import AccountTreeIcon from '@mui/icons-material/AccountTree';
import ApiIcon from '@mui/icons-material/Api';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import LanguageIcon from '@mui/icons-material/Language';
import NotificationsActiveIcon from '@mui/icons-material/NotificationsActive';
import StorageIcon from '@mui/icons-material/Storage';
import WebIcon from '@mui/icons-material/Web';
import { Box, Button, Card, CardContent, Container, Stack, Typography } from '@mui/material';
import { type ReactNode, Suspense, useState } from 'react';
import { Link as RouterLink } from 'react-router';
import { lazyWithQueries, useQueryLayer } from '../../api/query-layer.ts';
import { FaqList } from '../../components/faq-list.tsx';
import { FEATURES, featureStatus, HERO_TITLE, landingFaq, type Offer } from './landing-content.ts';

const FEATURE_ICONS: readonly ReactNode[] = [
  <WebIcon key="wordpress" />,
  <AccountTreeIcon key="n8n" />,
  <StorageIcon key="databases" />,
  <LanguageIcon key="domains" />,
  <NotificationsActiveIcon key="status" />,
  <ApiIcon key="api" />,
];

const FACTS = [
  { value: '1 hour', label: 'free trial, no card' },
  { value: 'Monthly or yearly', label: 'billing, cancel any time' },
] as const;

const TRIAL_POINTS = [
  'Deploy a real instance during the trial',
  'No credit card required',
  'Keep it running with Starter or Pro',
] as const;

// The two grids of the page as CSS grids (MUI's Grid is a chunk of its own in the first load): one,
// two or three feature cards a row, and the trial card's 7/12 + 5/12 split with MUI Grid's widths.
const FEATURE_COLUMNS = {
  xs: 'minmax(0, 1fr)',
  sm: 'repeat(2, minmax(0, 1fr))',
  md: 'repeat(3, minmax(0, 1fr))',
};
const TRIAL_COLUMNS = {
  xs: 'minmax(0, 1fr)',
  md: 'calc(100% * 7 / 12 - 5 / 12 * 32px) calc(100% * 5 / 12 - 7 / 12 * 32px)',
};

function StartTrialButton() {
  return (
    <Button component={RouterLink} to="/register" variant="contained" size="large">
      Start Free Trial
    </Button>
  );
}

/** Whether this install offers the feature; the line keeps its height while the offer loads. */
function FeatureStatusLine({ index, offer }: { index: number; offer: Offer | undefined }) {
  const feature = FEATURES[index];
  const status = feature && offer ? featureStatus(feature, offer) : null;
  return (
    <Typography
      variant="body2"
      sx={{
        mt: 1.5,
        minHeight: '1.5em',
        fontWeight: 600,
        color: status?.available ? 'success.main' : 'text.secondary',
      }}
    >
      {status?.label}
    </Typography>
  );
}

// Only for an app the server did not render (no offer in the page): the offer is fetched.
const OfferQuery = lazyWithQueries(async () => (await import('./offer-query.tsx')).OfferQuery);

/**
 * The landing page (platform-area: hero, feature grid, free-trial card, seven-question FAQ). What an
 * install cannot deploy yet says so, from the server's offer (GET /api/config): the one the page was
 * rendered with, so a visitor's landing page needs no request and no query layer; else fetched.
 */
export function LandingPage() {
  const pageOffer = useQueryLayer().seed.publicConfig?.offer;
  const [fetchedOffer, setFetchedOffer] = useState<Offer>();
  return (
    <>
      <LandingContent offer={pageOffer ?? fetchedOffer} />
      {!pageOffer && (
        <Suspense fallback={null}>
          <OfferQuery onOffer={setFetchedOffer} />
        </Suspense>
      )}
    </>
  );
}

function LandingContent({ offer }: { offer: Offer | undefined }) {
  return (
    <>
      <Box
        component="section"
        aria-labelledby="hero-title"
        sx={{
          py: { xs: 8, md: 12 },
          background: (theme) =>
            `radial-gradient(ellipse at top, ${theme.palette.mode === 'dark' ? 'rgba(125, 157, 255, 0.16)' : 'rgba(52, 87, 213, 0.10)'}, transparent 60%)`,
        }}
      >
        <Container maxWidth="md" sx={{ textAlign: 'center' }}>
          <Typography
            id="hero-title"
            variant="h2"
            component="h1"
            sx={{ fontSize: { xs: '2.25rem', md: '3.5rem' }, letterSpacing: '-0.02em', mb: 2.5 }}
          >
            {HERO_TITLE}
          </Typography>
          <Typography variant="h6" component="p" color="text.secondary" sx={{ fontWeight: 400, mb: 4 }}>
            Pick an application or a database, deploy it, and manage it from one dashboard. Start with a free
            1-hour trial — no credit card required.
          </Typography>
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ justifyContent: 'center' }}>
            <StartTrialButton />
            <Button component={RouterLink} to="/pricing" variant="outlined" size="large">
              View Pricing
            </Button>
          </Stack>
          <Stack
            component="dl"
            direction={{ xs: 'column', sm: 'row' }}
            spacing={{ xs: 2, sm: 6 }}
            sx={{ justifyContent: 'center', mt: 6, mb: 0 }}
          >
            {FACTS.map((fact) => (
              <Box key={fact.value}>
                <Typography component="dt" variant="h5" sx={{ fontWeight: 700 }}>
                  {fact.value}
                </Typography>
                <Typography component="dd" color="text.secondary" sx={{ m: 0 }}>
                  {fact.label}
                </Typography>
              </Box>
            ))}
          </Stack>
        </Container>
      </Box>

      <Container
        component="section"
        aria-labelledby="features-title"
        maxWidth="lg"
        sx={{ py: { xs: 6, md: 10 } }}
      >
        <Typography id="features-title" variant="h4" component="h2" sx={{ textAlign: 'center', mb: 1.5 }}>
          Everything you need to ship
        </Typography>
        <Typography color="text.secondary" sx={{ textAlign: 'center', mb: 5 }}>
          Applications, databases, domains and backups in one place.
        </Typography>
        <Box sx={{ display: 'grid', gap: 3, gridTemplateColumns: FEATURE_COLUMNS }}>
          {FEATURES.map((feature, index) => (
            <Box key={feature.title}>
              <Card sx={{ height: '100%' }}>
                <CardContent sx={{ p: 3 }}>
                  <Box
                    aria-hidden
                    sx={{
                      width: 44,
                      height: 44,
                      borderRadius: 2,
                      display: 'grid',
                      placeItems: 'center',
                      bgcolor: 'action.selected',
                      color: 'primary.main',
                      mb: 2,
                    }}
                  >
                    {FEATURE_ICONS[index]}
                  </Box>
                  <Typography variant="h6" component="h3" gutterBottom>
                    {feature.title}
                  </Typography>
                  <Typography color="text.secondary">{feature.text}</Typography>
                  <FeatureStatusLine index={index} offer={offer} />
                </CardContent>
              </Card>
            </Box>
          ))}
        </Box>
      </Container>

      <Container
        component="section"
        aria-labelledby="trial-title"
        maxWidth="md"
        sx={{ pb: { xs: 6, md: 10 } }}
      >
        <Card sx={{ borderColor: 'primary.main', borderWidth: 2 }}>
          <CardContent sx={{ p: { xs: 3, md: 5 } }}>
            <Box sx={{ display: 'grid', gap: 4, alignItems: 'center', gridTemplateColumns: TRIAL_COLUMNS }}>
              <Box sx={{ minWidth: 0 }}>
                <Typography id="trial-title" variant="h4" component="h2" gutterBottom>
                  Try Berth free for 1 hour
                </Typography>
                <Typography color="text.secondary" sx={{ mb: 2 }}>
                  Your 60-minute trial starts the moment you create your account.
                </Typography>
                <Box component="ul" sx={{ listStyle: 'none', p: 0, m: 0 }}>
                  {TRIAL_POINTS.map((point) => (
                    <Box
                      component="li"
                      key={point}
                      sx={{ display: 'flex', alignItems: 'center', gap: 1, py: 0.5 }}
                    >
                      <CheckCircleIcon color="success" fontSize="small" aria-hidden />
                      <Typography>{point}</Typography>
                    </Box>
                  ))}
                </Box>
              </Box>
              <Box sx={{ minWidth: 0, textAlign: { xs: 'left', md: 'center' } }}>
                <Typography variant="h3" component="p" sx={{ fontWeight: 700 }}>
                  Free
                </Typography>
                <Typography color="text.secondary" sx={{ mb: 2 }}>
                  for your first hour
                </Typography>
                <StartTrialButton />
              </Box>
            </Box>
          </CardContent>
        </Card>
      </Container>

      <Container component="section" aria-labelledby="faq-title" maxWidth="md" sx={{ pb: { xs: 8, md: 12 } }}>
        <Typography id="faq-title" variant="h4" component="h2" sx={{ textAlign: 'center', mb: 4 }}>
          Frequently asked questions
        </Typography>
        <FaqList items={landingFaq(offer)} level="h3" />
      </Container>
    </>
  );
}
