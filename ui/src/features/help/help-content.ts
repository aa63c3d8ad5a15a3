import { DOMAIN_VERIFICATION, SUPPORT_RESPONSE_HOURS } from '@berth/openapi/rules';
import type { FaqItem } from '../../components/faq-list.tsx';

export interface FaqCategory {
  title: string;
  items: readonly FaqItem[];
}

/** The help page's FAQ, in its three categories (platform-area: help page). */
export const HELP_FAQ: readonly FaqCategory[] = [
  {
    title: 'Getting Started',
    items: [
      {
        question: 'How do I deploy my first instance?',
        answer:
          'Create an account, open the dashboard and choose Deploy. Pick one of the types this server offers (the Deploy screen marks the others as not available yet), give the instance a name, choose a region and confirm. The dashboard shows its status as the deployment runs.',
      },
      {
        question: 'How long is the free trial?',
        answer:
          'The trial lasts 60 minutes from the moment you register, with no credit card. The dashboard shows the time left and warns you when 5 minutes or less remain.',
      },
      {
        question: 'I forgot my password. What now?',
        answer:
          'Choose "Forgot password?" on the sign-in page and enter your e-mail address. We send a reset link that works once and expires after 1 hour.',
      },
    ],
  },
  {
    title: 'Billing & Plans',
    items: [
      {
        question: 'Which plan should I choose?',
        answer:
          'Starter runs 1 instance with a custom domain, SSL and e-mail support. Pro runs unlimited instances and domains, with priority support and API access. You can add extra instances to Starter instead of moving to Pro.',
      },
      {
        question: 'Is yearly billing cheaper?',
        answer:
          'Yes. Paying yearly takes 10 % off Starter and 30 % off Pro compared with twelve monthly payments. The Pricing page shows both.',
      },
      {
        question: 'What happens if a payment fails or my plan ends?',
        answer:
          'Your instances are suspended and actions that change them are disabled until a plan is active again. Subscribe from the Billing page to bring them back.',
      },
    ],
  },
  {
    title: 'Technical',
    items: [
      {
        question: 'How do I connect my own domain?',
        answer: `Add the domain on the instance page: it shows a TXT record that proves the domain is yours. Add that record at your DNS provider exactly as shown, named ${DOMAIN_VERIFICATION.name}.<your domain> with the value ${DOMAIN_VERIFICATION.valuePrefix}<the token shown> (for shop.example.com: ${DOMAIN_VERIFICATION.name}.shop.example.com). Point the domain itself at Berth too: a CNAME record for a subdomain, an A or ALIAS record for the bare domain. Once the TXT record is found (at once with Verify now, or by the background checks) the domain is attached; the SSL certificate is issued when the DNS record is visible, which can take a few minutes.`,
      },
      {
        question: 'Where do I find my database credentials?',
        answer:
          'Open the instance and show its connection details: host, port, database, user, password and a connection string. Credentials can take up to a minute to appear after a deployment.',
      },
      {
        question: 'Can I back up my sites and databases?',
        answer:
          'Yes. WordPress, MySQL, PostgreSQL and n8n instances are backed up once a day, kept for as many days as your plan allows. Their Backups tab shows each backup with its size and where it is kept, makes one when you ask (with a name and an optional note), downloads, restores and deletes them.',
      },
    ],
  },
];

/** Support response times: what the help desk records as each ticket's due time. */
export const RESPONSE_TIMES = [
  {
    plan: 'Starter',
    time: `${SUPPORT_RESPONSE_HOURS.starter} hours`,
    note: 'Trials too; answers in the app',
  },
  { plan: 'Pro', time: `${SUPPORT_RESPONSE_HOURS.pro} hours`, note: 'Priority support: answered first' },
] as const;
