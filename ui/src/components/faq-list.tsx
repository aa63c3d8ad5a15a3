import ExpandMoreIcon from '@mui/icons-material/ExpandMore';
import { Box, Typography } from '@mui/material';
import { useId, useState } from 'react';

export interface FaqItem {
  question: string;
  answer: string;
}

/**
 * Questions that open to their answer; each question is a heading of `level` (document outline) holding
 * a button that shows or hides the answer's region. A plain disclosure rather than MUI's Accordion: the
 * landing page's app is smaller by the Accordion and its transitions (the bundle budget).
 */
export function FaqList({ items, level }: { items: readonly FaqItem[]; level: 'h3' | 'h4' }) {
  const id = useId();
  const [open, setOpen] = useState<ReadonlySet<number>>(() => new Set());
  const toggle = (index: number) =>
    setOpen((current) => {
      const next = new Set(current);
      if (!next.delete(index)) next.add(index);
      return next;
    });
  return (
    <Box
      sx={{
        border: 1,
        borderColor: 'divider',
        borderRadius: 1,
        bgcolor: 'background.paper',
        overflow: 'hidden',
      }}
    >
      {items.map((item, index) => {
        const expanded = open.has(index);
        const question = `${id}-q${index}`;
        const answer = `${id}-a${index}`;
        return (
          <Box key={item.question} sx={{ '&:not(:first-of-type)': { borderTop: 1, borderColor: 'divider' } }}>
            <Typography component={level} sx={{ m: 0, font: 'inherit' }}>
              <Box
                component="button"
                type="button"
                id={question}
                aria-expanded={expanded}
                aria-controls={answer}
                onClick={() => toggle(index)}
                sx={{
                  display: 'flex',
                  alignItems: 'center',
                  justifyContent: 'space-between',
                  gap: 2,
                  width: '100%',
                  minHeight: 48,
                  px: 2,
                  py: 1.5,
                  border: 0,
                  bgcolor: 'transparent',
                  color: 'text.primary',
                  font: 'inherit',
                  fontWeight: 600,
                  textAlign: 'left',
                  cursor: 'pointer',
                  '&:hover': { bgcolor: 'action.hover' },
                  '&:focus-visible': { outline: 2, outlineColor: 'primary.main', outlineOffset: -2 },
                }}
              >
                {item.question}
                <ExpandMoreIcon
                  aria-hidden
                  sx={{
                    color: 'action.active',
                    flexShrink: 0,
                    transition: 'transform 150ms',
                    transform: expanded ? 'rotate(180deg)' : 'none',
                  }}
                />
              </Box>
            </Typography>
            <Box
              role="region"
              id={answer}
              aria-labelledby={question}
              hidden={!expanded}
              sx={{ px: 2, pb: 2 }}
            >
              <Typography color="text.secondary">{item.answer}</Typography>
            </Box>
          </Box>
        );
      })}
    </Box>
  );
}
