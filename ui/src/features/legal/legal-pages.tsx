import { SUPPORT_RESPONSE_HOURS } from '@berth/openapi/rules';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import { Box, Container, Divider, Link, Stack, Typography } from '@mui/material';
import { Link as RouterLink } from 'react-router';
import { ThemeToggle } from '../../components/theme-toggle.tsx';
import { useScreenExists } from '../../navigation/screen-exists.ts';
import { AFFILIATE_PRIVACY, AFFILIATE_TERMS } from './affiliate.ts';
import { GDPR } from './gdpr.ts';
import type { LegalBlock, LegalDocument } from './legal-document.ts';
import { COOKIE_POLICY, PRIVACY_POLICY } from './privacy.ts';
import { TERMS } from './terms.ts';

function Block({ block }: { block: LegalBlock }) {
  if (typeof block === 'string') return <Typography sx={{ mb: 2 }}>{block}</Typography>;
  return (
    <Box component="ul" sx={{ pl: 3, mt: 0, mb: 2, '& li': { mb: 1 } }}>
      {block.list.map((item) => (
        <Typography component="li" key={item}>
          {item}
        </Typography>
      ))}
    </Box>
  );
}

/**
 * A legal page (platform-area: legal pages): a link home to / and a theme toggle, the document, and
 * where to ask questions. The affiliate documents also link back to the affiliate program.
 */
export function LegalPage({ document }: { document: LegalDocument }) {
  const exists = useScreenExists();
  return (
    <Container component="article" maxWidth="md" sx={{ py: { xs: 4, md: 6 } }}>
      <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between', mb: 4 }}>
        <Stack direction="row" spacing={3} sx={{ alignItems: 'center' }}>
          <Link
            component={RouterLink}
            to="/"
            underline="hover"
            sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.5, fontWeight: 600 }}
          >
            <ArrowBackIcon fontSize="small" aria-hidden />
            Back to Home
          </Link>
          {document.affiliate && exists('/affiliate') && (
            <Link component={RouterLink} to="/affiliate" underline="hover" sx={{ fontWeight: 600 }}>
              Affiliate Program
            </Link>
          )}
        </Stack>
        <ThemeToggle />
      </Stack>
      <Typography variant="h3" component="h1" sx={{ fontSize: { xs: '2rem', md: '2.75rem' }, mb: 1 }}>
        {document.title}
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 3 }}>
        Last updated: {document.updated}
      </Typography>
      <Typography variant="h6" component="p" sx={{ fontWeight: 400, mb: 4 }}>
        {document.intro}
      </Typography>
      {document.sections.map((section) => (
        <Box component="section" key={section.heading} sx={{ mb: 3 }}>
          <Typography variant="h5" component="h2" sx={{ mb: 1.5 }}>
            {section.heading}
          </Typography>
          {section.blocks.map((block) => (
            <Block key={typeof block === 'string' ? block : block.list.join('|')} block={block} />
          ))}
        </Box>
      ))}
      <Divider sx={{ my: 4 }} />
      <Box component="section" aria-labelledby="legal-contact-title">
        <Typography id="legal-contact-title" variant="h5" component="h2" sx={{ mb: 1.5 }}>
          Questions
        </Typography>
        <Typography>
          Write to us through the contact form of our{' '}
          {exists('/help') ? (
            <Link component={RouterLink} to="/help">
              Help Center
            </Link>
          ) : (
            'Help Center'
          )}
          . We answer within {SUPPORT_RESPONSE_HOURS.starter} hours on Starter and within{' '}
          {SUPPORT_RESPONSE_HOURS.pro} hours on Pro.
        </Typography>
      </Box>
    </Container>
  );
}

export const TermsPage = () => <LegalPage document={TERMS} />;
export const PrivacyPolicyPage = () => <LegalPage document={PRIVACY_POLICY} />;
export const CookiePolicyPage = () => <LegalPage document={COOKIE_POLICY} />;
export const GdprPage = () => <LegalPage document={GDPR} />;
export const AffiliateTermsPage = () => <LegalPage document={AFFILIATE_TERMS} />;
export const AffiliatePrivacyPage = () => <LegalPage document={AFFILIATE_PRIVACY} />;
