import ScheduleIcon from '@mui/icons-material/Schedule';
import { Box, Card, CardContent, Container, Grid, Stack, Typography } from '@mui/material';
import { FaqList } from '../../components/faq-list.tsx';
import { ContactForm } from './contact-form.tsx';
import { HELP_FAQ, RESPONSE_TIMES } from './help-content.ts';

/** The help centre (platform-area: help page): FAQ in three categories, response times, contact form. */
export function HelpPage() {
  return (
    <Container maxWidth="lg" sx={{ py: { xs: 5, md: 8 } }}>
      <Box sx={{ textAlign: 'center', mb: 6 }}>
        <Typography variant="h3" component="h1" sx={{ mb: 1.5 }}>
          Help Center
        </Typography>
        <Typography variant="h6" component="p" color="text.secondary" sx={{ fontWeight: 400 }}>
          Answers to common questions, and a direct line to our support team.
        </Typography>
      </Box>

      <Grid container spacing={4}>
        <Grid size={{ xs: 12, md: 7 }}>
          <Box component="section" aria-labelledby="help-faq-title">
            <Typography id="help-faq-title" variant="h4" component="h2" sx={{ mb: 3 }}>
              Frequently Asked Questions
            </Typography>
            <Stack spacing={4}>
              {HELP_FAQ.map((category) => (
                <Box key={category.title}>
                  <Typography variant="h6" component="h3" sx={{ mb: 1.5 }}>
                    {category.title}
                  </Typography>
                  <FaqList items={category.items} level="h4" />
                </Box>
              ))}
            </Stack>
          </Box>
        </Grid>

        <Grid size={{ xs: 12, md: 5 }}>
          <Stack spacing={4}>
            <Card component="section" aria-labelledby="response-times-title">
              <CardContent sx={{ p: 3 }}>
                <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center', mb: 2 }}>
                  <ScheduleIcon color="primary" aria-hidden />
                  <Typography id="response-times-title" variant="h5" component="h2">
                    Response Times
                  </Typography>
                </Stack>
                <Box component="dl" sx={{ m: 0 }}>
                  {RESPONSE_TIMES.map((row) => (
                    <Stack
                      key={row.plan}
                      direction="row"
                      sx={{ justifyContent: 'space-between', py: 1.25, borderTop: 1, borderColor: 'divider' }}
                    >
                      <Typography component="dt">
                        <Box component="span" sx={{ display: 'block', fontWeight: 600 }}>
                          {row.plan}
                        </Box>
                        <Box
                          component="span"
                          sx={{ display: 'block', typography: 'body2', color: 'text.secondary' }}
                        >
                          {row.note}
                        </Box>
                      </Typography>
                      <Typography component="dd" variant="h6" sx={{ m: 0 }}>
                        {row.time}
                      </Typography>
                    </Stack>
                  ))}
                </Box>
              </CardContent>
            </Card>

            <Card component="section" aria-labelledby="contact-title">
              <CardContent sx={{ p: 3 }}>
                <Typography id="contact-title" variant="h5" component="h2" gutterBottom>
                  Contact Support
                </Typography>
                <Typography color="text.secondary" sx={{ mb: 3 }}>
                  Tell us what you need and we will get back to you by e-mail.
                </Typography>
                <ContactForm />
              </CardContent>
            </Card>
          </Stack>
        </Grid>
      </Grid>
    </Container>
  );
}
