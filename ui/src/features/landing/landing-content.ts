import type { Schemas } from '@berth/openapi';
import { INSTANCE_TYPE_CATALOGUE, INSTANCE_TYPE_IDS, type InstanceTypeId } from '@berth/openapi/rules';
import type { FaqItem } from '../../components/faq-list.tsx';

/** What this install offers (GET /api/config): instance types and the public API, each with a reason when not. */
export type Offer = Schemas['PublicOffer'];

export const HERO_TITLE = 'Deploy applications and databases in a few clicks';

export interface Feature {
  title: string;
  text: string;
  /** What the feature needs from this install; absent: it comes with every account. */
  needs?: readonly InstanceTypeId[] | 'publicApi';
}

/** Every database type of the catalogue (@berth/openapi/rules): what managed databases need. */
const DATABASE_TYPES = INSTANCE_TYPE_IDS.filter((id) => INSTANCE_TYPE_CATALOGUE[id].category === 'database');

/** The landing page's feature grid (platform-area: landing page). */
export const FEATURES: readonly Feature[] = [
  {
    title: 'WordPress sites',
    text: 'Site title, admin account and PHP version are set as you deploy. Backups, add-ons and SFTP access come with every site.',
    needs: ['wordpress'],
  },
  {
    title: 'n8n automation',
    text: 'Run your own n8n for workflow automation, with its own URL and free of per-task fees.',
    needs: ['n8n'],
  },
  {
    title: 'Managed databases',
    text: 'Connection details at hand, passwords you can rotate and a connection string ready to paste.',
    needs: DATABASE_TYPES,
  },
  {
    title: 'Custom domains and SSL',
    text: 'Prove a domain is yours with a TXT record and Berth attaches it to your WordPress site, with its SSL certificate.',
    needs: ['wordpress'],
  },
  {
    title: 'Live status',
    text: 'Deployments and changes run in the background; the dashboard and the notification bell follow them as they happen.',
  },
  {
    title: 'API for automation',
    text: 'On Pro, script deployments, domains and backups through the REST API, at up to 150 requests per minute.',
    needs: 'publicApi',
  },
];

export interface FeatureStatus {
  available: boolean;
  /** 'Available', a reason ('Coming soon'), or which parts are available and which are not. */
  label: string;
}

const names = (list: readonly string[]) =>
  list.length <= 1 ? (list[0] ?? '') : `${list.slice(0, -1).join(', ')} and ${list.at(-1)}`;

/** Whether this install offers a feature, in words; null for what every account gets. */
export function featureStatus(feature: Feature, offer: Offer): FeatureStatus | null {
  if (!feature.needs) return null;
  if (feature.needs === 'publicApi')
    return offer.publicApi.available
      ? { available: true, label: 'Available' }
      : { available: false, label: offer.publicApi.reason ?? 'Not available yet' };
  const types = offer.instanceTypes.filter((t) => feature.needs?.includes(t.type));
  const on = types.filter((t) => t.available);
  const off = types.filter((t) => !t.available);
  if (off.length === 0)
    return {
      available: true,
      label: on.length > 1 ? `Available: ${names(on.map((t) => t.name))}` : 'Available',
    };
  if (on.length === 0 && types.length === 1)
    return { available: false, label: off[0]?.reason ?? 'Not available yet' };
  const offText = off.map((t) => `${t.name}: ${t.reason ?? 'not available yet'}`).join(' · ');
  return {
    available: on.length > 0,
    label: on.length > 0 ? `Available: ${names(on.map((t) => t.name))} · ${offText}` : offText,
  };
}

/** How the FAQ calls what an application type deploys; any other application: its name. */
const APPLICATION_PHRASES: Partial<Record<InstanceTypeId, string>> = {
  wordpress: 'WordPress sites',
  n8n: 'n8n automation',
};

/** "WordPress sites and MySQL and PostgreSQL databases", from what is available. */
function deployable(offer: Offer): { available: string; later: string } {
  const isOn = (t: Offer['instanceTypes'][number]) => t.available;
  const label = (t: Offer['instanceTypes'][number]) =>
    t.category === 'database' ? `${t.name} databases` : (APPLICATION_PHRASES[t.type] ?? t.name);
  return {
    available: names(offer.instanceTypes.filter(isOn).map(label)),
    later: names(offer.instanceTypes.filter((t) => !isOn(t)).map((t) => t.name)),
  };
}

/** The seven questions of the landing page; two answers depend on what this install offers. */
export function landingFaq(offer: Offer | undefined): FaqItem[] {
  const types = offer && deployable(offer);
  const whatCanIDeploy = !types
    ? 'The Deploy screen lists the application and database types this server offers.'
    : `${types.available ? `On this server: ${types.available}.` : 'Nothing can be deployed on this server yet.'}${types.later ? ` Not available yet: ${types.later}.` : ''}`;
  const api = offer?.publicApi.available
    ? ', with priority support and API access at 150 requests per minute'
    : ' with priority support';
  return [
    {
      question: 'How does the free trial work?',
      answer:
        'Every new account gets a free 1-hour trial (60 minutes) with no credit card. You can deploy an instance at once. When the hour is over, pick Starter or Pro to keep it running; without a plan your instances are suspended.',
    },
    { question: 'What can I deploy?', answer: whatCanIDeploy },
    {
      question: 'How fast is a deployment?',
      answer:
        'A database is usually ready within seconds, with its connection details; a WordPress site with its admin account takes a little longer. The dashboard shows the status as it changes.',
    },
    {
      question: 'Can I use my own domain?',
      answer:
        'Yes, on WordPress sites. Add the TXT record Berth shows you to prove the domain is yours; Berth then attaches the domain to your site and issues its SSL certificate.',
    },
    {
      question: 'What is the difference between Starter and Pro?',
      answer: `Starter runs 1 instance with a custom domain, SSL and e-mail support; you can add more instances to it. Pro runs unlimited instances and domains${api}.`,
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
}
