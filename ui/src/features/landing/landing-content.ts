import type { FaqItem } from '../../components/faq-list.tsx';

export interface Feature {
  title: string;
  text: string;
}

/** The landing page's feature grid (platform-area: landing page). */
export const FEATURES: readonly Feature[] = [
  {
    title: 'WordPress in one click',
    text: 'Site title, admin account and PHP version are set as you deploy. Backups, add-ons and SFTP access come with every site.',
  },
  {
    title: 'n8n automation',
    text: 'Run your own n8n for workflow automation, with its own URL, ready in seconds and free of per-task fees.',
  },
  {
    title: 'Managed databases',
    text: 'MySQL and MongoDB with connection details at hand, passwords you can rotate and a connection string ready to paste.',
  },
  {
    title: 'Custom domains and SSL',
    text: 'Point a CNAME record at Berth to use your own domain. Certificates are issued and renewed for you.',
  },
  {
    title: 'Regions near your users',
    text: 'Deploy in US East, US West, EU West, EU Central, Mumbai or Singapore, and move closer to the people you serve.',
  },
  {
    title: 'API for automation',
    text: 'On Pro, script deployments, domains and backups through the REST API, at up to 150 requests per minute.',
  },
];

/** The seven questions of the landing page. */
export const LANDING_FAQ: readonly FaqItem[] = [
  {
    question: 'How does the free trial work?',
    answer:
      'Every new account gets a free 1-hour trial (60 minutes) with no credit card. You can deploy an instance at once. When the hour is over, pick Starter or Pro to keep it running; without a plan your instances are suspended.',
  },
  {
    question: 'What can I deploy?',
    answer:
      'WordPress sites, n8n automation and MySQL or MongoDB databases. Node-RED and Nextcloud are on the way.',
  },
  {
    question: 'How fast is a deployment?',
    answer:
      'Most instances are live in under 30 seconds. A WordPress site with its admin account takes 30 to 60 seconds, and a database is ready within a minute with its connection details.',
  },
  {
    question: 'Can I use my own domain?',
    answer:
      'Yes. Add a CNAME record for your domain that points at Berth, then add the domain to your instance. We issue the SSL certificate once the DNS record is in place.',
  },
  {
    question: 'What is the difference between Starter and Pro?',
    answer:
      'Starter runs 1 instance with a custom domain, SSL and e-mail support; you can add more instances to it. Pro runs unlimited instances and domains, with priority support and API access at 150 requests per minute.',
  },
  {
    question: 'What happens when my subscription ends?',
    answer:
      'Your instances are suspended and actions that change them (deleting, backups, domains, password changes) are disabled until you subscribe again.',
  },
  {
    question: 'Can I cancel at any time?',
    answer:
      'Yes. Plans are billed monthly or yearly, and a cancelled plan stays active until the end of the period you paid for.',
  },
];
