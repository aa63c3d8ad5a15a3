import { INSTANCE_TYPE_CATALOGUE, INSTANCE_TYPE_IDS } from '@berth/openapi/rules';
import { describe, expect, it } from 'vitest';
import { capabilities, makeInstance } from '../../../test/fixtures.ts';
import {
  APPLICATION_NAMES,
  availabilityOf,
  canChangePassword,
  DASHBOARD_REGIONS,
  defaultCategory,
  defaultPort,
  entryOfId,
  isDatabase,
  quickDeployChoice,
  REGIONS,
  regionLabel,
  statusColor,
  TYPE_CHOICES,
  type TypeChoice,
  typeBadge,
} from './instance-catalog.ts';

const types = capabilities().types;
function choice(name: string): TypeChoice {
  const found = [...TYPE_CHOICES.application, ...TYPE_CHOICES.database].find((entry) => entry.name === name);
  if (!found) throw new Error(`no choice ${name}`);
  return found;
}

describe('regions', () => {
  it('has the thirteen regions with their labels, six of them in the deploy modal', () => {
    expect(REGIONS).toHaveLength(13);
    expect(regionLabel('eu-central-1')).toBe('EU Central (Frankfurt)');
    expect(regionLabel('ap-southeast-1')).toBe('Singapore');
    expect(regionLabel('mars-1')).toBe('mars-1');
    expect(DASHBOARD_REGIONS).toEqual([
      'us-east-1',
      'us-west-2',
      'eu-west-1',
      'eu-central-1',
      'ap-south-1',
      'ap-southeast-1',
    ]);
  });
});

describe('the choices come from the catalogue', () => {
  it('lists every catalogue type under its category, with its words and deploy fields', () => {
    for (const type of INSTANCE_TYPE_IDS) {
      const entry = INSTANCE_TYPE_CATALOGUE[type];
      expect(TYPE_CHOICES[entry.category]).toContainEqual({
        type,
        name: entry.name,
        category: entry.category,
        description: entry.description,
        deploymentInfo: entry.deploymentInfo,
        deployFields: entry.deployFields,
      });
    }
  });

  it("offers exactly the catalogue's databases, and its applications before the announced ones", () => {
    const ids = (category: 'application' | 'database') =>
      INSTANCE_TYPE_IDS.filter((type) => INSTANCE_TYPE_CATALOGUE[type].category === category);
    expect(TYPE_CHOICES.database.map((entry) => entry.type)).toEqual(ids('database'));
    expect(TYPE_CHOICES.application.map((entry) => entry.type)).toEqual([
      ...ids('application'),
      undefined,
      undefined,
    ]);
    expect(TYPE_CHOICES.application.map((entry) => entry.name)).toEqual([
      'WordPress',
      'n8n',
      'Node-RED',
      'Nextcloud',
    ]);
    expect(APPLICATION_NAMES).toEqual(ids('application').map((type) => INSTANCE_TYPE_CATALOGUE[type].name));
  });

  it('finds entries by id and databases their default port by name', () => {
    expect(entryOfId('postgresql')?.name).toBe('PostgreSQL');
    expect(entryOfId('')).toBeUndefined();
    expect(entryOfId('toString')).toBeUndefined();
    expect(defaultPort('MySQL')).toBe(3306);
    expect(defaultPort('MongoDB')).toBe(27017);
    expect(defaultPort('WordPress')).toBeUndefined();
  });
});

describe('what can be deployed', () => {
  it("follows the server's capabilities, with its reason; announced types are 'Soon'", () => {
    expect(availabilityOf(choice('MySQL'), types)).toEqual({ available: true });
    expect(availabilityOf(choice('MongoDB'), types)).toEqual({
      available: false,
      reason: 'MongoDB is not offered on this server',
    });
    expect(availabilityOf(choice('WordPress'), types)).toEqual({ available: false, reason: 'Coming soon' });
    expect(availabilityOf(choice('Node-RED'), types)).toEqual({ available: false, reason: 'Soon' });
    expect(availabilityOf(choice('Nextcloud'), undefined)).toEqual({ available: false, reason: 'Soon' });
    expect(availabilityOf(choice('MySQL'), undefined)).toEqual({ available: false, reason: '' });
  });

  it('offers WordPress and n8n where the server does', () => {
    const offered = capabilities({ wordpress: null, n8n: null }).types;
    expect(availabilityOf(choice('WordPress'), offered)).toEqual({ available: true });
    expect(availabilityOf(choice('n8n'), offered)).toEqual({ available: true });
  });

  it('opens the category that has something to deploy', () => {
    expect(defaultCategory(types)).toBe('database');
    expect(defaultCategory(capabilities({ wordpress: null }).types)).toBe('application');
    expect(defaultCategory(capabilities({ n8n: null }).types)).toBe('application');
    expect(defaultCategory(capabilities({ mysql: 'down', postgresql: 'down' }).types)).toBe('application');
    expect(defaultCategory(undefined)).toBe('application');
  });

  it('quick-deploys MySQL first, else the next database available', () => {
    expect(quickDeployChoice(types)?.name).toBe('MySQL');
    expect(quickDeployChoice(capabilities({ mysql: 'down' }).types)?.name).toBe('PostgreSQL');
    expect(quickDeployChoice(capabilities({ mysql: 'down', postgresql: 'down' }).types)).toBeUndefined();
  });
});

describe('instances', () => {
  it('recognises databases by category, type or metadata', () => {
    expect(isDatabase(makeInstance())).toBe(true);
    const site = makeInstance({ type: 'WordPress', category: 'application', metadata: { database: false } });
    expect(isDatabase(site)).toBe(false);
    expect(isDatabase({ ...site, metadata: { database: false, postgres: true } })).toBe(true);
    expect(isDatabase({ ...site, type: 'MongoDB' })).toBe(true);
    expect(typeBadge(makeInstance())).toBe('Database');
    expect(typeBadge(site)).toBe('WordPress');
  });

  it('changes passwords of MySQL, MongoDB and PostgreSQL only', () => {
    expect(['MySQL', 'MongoDB', 'PostgreSQL', 'WordPress', 'n8n'].filter(canChangePassword)).toEqual([
      'MySQL',
      'MongoDB',
      'PostgreSQL',
    ]);
  });

  it.each([
    ['running', 'success'],
    ['deploying', 'warning'],
    ['error', 'error'],
    ['suspended', 'default'],
    ['deleting', 'default'],
  ] as const)('colours %s as %s', (status, color) => {
    expect(statusColor(status)).toBe(color);
  });
});
