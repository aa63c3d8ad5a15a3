import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import SupportAgentIcon from '@mui/icons-material/SupportAgent';
import { Box, Card, CardContent, IconButton, Stack, Tooltip, Typography } from '@mui/material';
import type { Ticket } from '../../api/help.queries.ts';
import { HelpImages } from './help-image.tsx';
import { answerExpected } from './support-promise.ts';
import { SupportText } from './support-text.tsx';
import { CATEGORY_LABELS, formatTime, TicketStatusBadge } from './ticket-status.tsx';

/**
 * One of the customer's tickets: subject, status badge, delete button, time and category, message,
 * images, and the 'Support Response' block once answered. `forceAnswered` shows the badge 'answered'
 * (the answered tab, spec platform-area "Get Help").
 */
export function TicketCard({
  ticket,
  forceAnswered = false,
  onDelete,
}: {
  ticket: Ticket;
  forceAnswered?: boolean;
  onDelete: (ticket: Ticket) => void;
}) {
  const response = ticket.adminResponse;
  const headingId = `ticket-${ticket.id}-subject`;
  return (
    <Card component="article" variant="outlined" aria-labelledby={headingId}>
      <CardContent sx={{ p: 3 }}>
        <Stack direction="row" sx={{ gap: 1.5, alignItems: 'flex-start', justifyContent: 'space-between' }}>
          <Box sx={{ minWidth: 0 }}>
            <Stack direction="row" sx={{ gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
              <Typography id={headingId} variant="h6" component="h3" sx={{ overflowWrap: 'anywhere' }}>
                {ticket.subject}
              </Typography>
              <TicketStatusBadge status={forceAnswered ? 'answered' : ticket.status} />
            </Stack>
            <Typography variant="body2" color="text.secondary">
              {formatTime(ticket.createdAt)} · {CATEGORY_LABELS[ticket.category] ?? ticket.category}
            </Typography>
            {ticket.status === 'open' && !response && (
              <Typography variant="body2" color="text.secondary">
                {answerExpected(ticket)}
              </Typography>
            )}
          </Box>
          <Tooltip title="Delete ticket">
            <IconButton aria-label={`Delete ticket ${ticket.subject}`} onClick={() => onDelete(ticket)}>
              <DeleteOutlineIcon />
            </IconButton>
          </Tooltip>
        </Stack>
        <Box sx={{ mt: 2 }}>
          <SupportText text={ticket.message} />
        </Box>
        {ticket.attachments.length > 0 && (
          <Box sx={{ mt: 2 }}>
            <HelpImages attachments={ticket.attachments} label="Your images" />
          </Box>
        )}
        {response && (
          <Box
            component="section"
            aria-label="Support Response"
            sx={{
              mt: 3,
              p: 2,
              borderRadius: 2,
              border: 1,
              borderColor: 'success.main',
              bgcolor: 'action.hover',
            }}
          >
            <Stack direction="row" sx={{ gap: 1, alignItems: 'center', mb: 1 }}>
              <SupportAgentIcon color="success" aria-hidden />
              <Typography variant="subtitle1" component="h4" sx={{ fontWeight: 600 }}>
                Support Response
              </Typography>
            </Stack>
            <SupportText text={response.text} />
            <Typography variant="caption" color="text.secondary" sx={{ display: 'block', mt: 1 }}>
              Answered {formatTime(response.respondedAt)}
            </Typography>
            {response.attachments.length > 0 && (
              <Box sx={{ mt: 1.5 }}>
                <HelpImages attachments={response.attachments} label="Response images" />
              </Box>
            )}
          </Box>
        )}
      </CardContent>
    </Card>
  );
}
