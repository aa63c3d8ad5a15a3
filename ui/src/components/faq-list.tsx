import ExpandMoreIcon from '@mui/icons-material/ExpandMore';
import { Accordion, AccordionDetails, AccordionSummary, Box, Typography } from '@mui/material';
import { useId } from 'react';

export interface FaqItem {
  question: string;
  answer: string;
}

/** Questions that open to their answer; each question is a heading of `level` (document outline). */
export function FaqList({ items, level }: { items: readonly FaqItem[]; level: 'h3' | 'h4' }) {
  const id = useId();
  return (
    <Box>
      {items.map((item, index) => (
        <Accordion
          key={item.question}
          disableGutters
          variant="outlined"
          slotProps={{ heading: { component: level } }}
          sx={{ '&:not(:first-of-type)': { borderTop: 0 }, '&::before': { display: 'none' } }}
        >
          <AccordionSummary
            expandIcon={<ExpandMoreIcon />}
            id={`${id}-q${index}`}
            aria-controls={`${id}-a${index}`}
          >
            <Typography component="span" sx={{ fontWeight: 600 }}>
              {item.question}
            </Typography>
          </AccordionSummary>
          <AccordionDetails>
            <Typography color="text.secondary">{item.answer}</Typography>
          </AccordionDetails>
        </Accordion>
      ))}
    </Box>
  );
}
