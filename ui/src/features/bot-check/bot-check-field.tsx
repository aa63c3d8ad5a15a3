import { Alert, Box } from '@mui/material';
import { Suspense } from 'react';
import { useIntegrations } from '../../platform/integrations.ts';
import { useColorMode } from '../../theme/use-color-mode.ts';
import { BOT_CHECK_MISSING, type BotCheck } from './use-bot-check.ts';

/**
 * The bot-check widget of a form, hidden when the server runs without a site key. An expired token
 * starts the widget over; after an error the widget retries by itself. A refused submit shows
 * 'Please complete the CAPTCHA verification' under it.
 */
export function BotCheckField({ check }: { check: BotCheck }) {
  const { BotCheckWidget } = useIntegrations();
  const { mode } = useColorMode();
  const { siteKey, setToken, reset } = check;
  if (siteKey === null) return null;
  return (
    <Box role="group" aria-label="Bot check">
      {/* The widget's code loads on first use; the form stays on screen meanwhile. */}
      <Suspense fallback={null}>
        <BotCheckWidget
          key={`${check.generation}-${mode}`}
          siteKey={siteKey}
          theme={mode}
          onToken={setToken}
          onExpire={reset}
          onError={() => setToken(null)}
        />
      </Suspense>
      {check.missing && (
        <Alert severity="error" role="alert" sx={{ mt: 1 }}>
          {BOT_CHECK_MISSING}
        </Alert>
      )}
    </Box>
  );
}
