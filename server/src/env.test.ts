import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDataDir, readConfig } from './env.ts';

describe('the data directory', () => {
  it('is the checkout’s data/ by default, whichever folder the server starts in (npm start runs it in server/)', () => {
    const cwd = process.cwd();
    try {
      process.chdir(new URL('..', import.meta.url).pathname);
      expect(readConfig({}).dataDir).toBe(defaultDataDir());
      expect(readConfig({ BERTH_DATA_DIR: 'elsewhere' }).dataDir).toBe(path.resolve('elsewhere'));
    } finally {
      process.chdir(cwd);
    }
  });

  it('stays in server/data for an install whose database is there already, until data/ exists', async () => {
    const checkout = await mkdtemp(path.join(tmpdir(), 'berth-checkout-'));
    try {
      expect(defaultDataDir(checkout)).toBe(path.join(checkout, 'data'));
      await mkdir(path.join(checkout, 'server', 'data', 'postgres'), { recursive: true });
      expect(defaultDataDir(checkout)).toBe(path.join(checkout, 'server', 'data'));
      await mkdir(path.join(checkout, 'data'));
      expect(defaultDataDir(checkout)).toBe(path.join(checkout, 'data'));
    } finally {
      await rm(checkout, { recursive: true, force: true });
    }
  });
});

describe('provisioning and secrets configuration', () => {
  it('defaults to the local driver under the data directory, naming 127.0.0.1 in credentials', () => {
    const config = readConfig({ BERTH_DATA_DIR: '/var/lib/berth' });
    expect(config.provisioning).toEqual({
      driver: 'local',
      swarm: undefined,
      dataDir: '/var/lib/berth/provisioning',
      localRegion: 'us-east-1',
      mysqlAdminUrl: undefined,
      postgresAdminUrl: undefined,
      mongodbAdminUrl: undefined,
      publicHost: '127.0.0.1',
      listenAddress: undefined,
      instanceTls: undefined,
      mysqlDiskMb: 1024,
      postgresDiskMb: 1024,
      diskReserveMb: 2048,
      diskOvercommit: 4,
      sites: {
        baseDomain: 'localhost',
        httpPort: undefined,
        httpsPort: undefined,
        sftpPort: undefined,
        tls: 'internal',
        listenHost: '127.0.0.1',
        diskMb: 1024,
        databaseMb: 512,
      },
      n8n: { diskMb: 1024 },
      tenantEgressAllow: [],
    });
    expect(config.encryptionKey).toBeUndefined();
  });

  it('reads the WordPress site settings', () => {
    const config = readConfig({
      SITES_BASE_DOMAIN: 'Sites.Example.com',
      SITES_HTTP_PORT: '80',
      SITES_HTTPS_PORT: '443',
      SFTP_PORT: '2022',
      SITES_TLS: 'acme',
      SITES_LISTEN_HOST: '0.0.0.0',
      SITES_DISK_MB: '4096',
      SITES_DATABASE_MB: '256',
    });
    expect(config.provisioning.sites).toEqual({
      baseDomain: 'sites.example.com',
      httpPort: 80,
      httpsPort: 443,
      sftpPort: 2022,
      tls: 'acme',
      listenHost: '0.0.0.0',
      diskMb: 4096,
      databaseMb: 256,
    });
  });

  it('reads the region the local driver serves (LOCAL_REGION), one of the deploy form’s', () => {
    expect(readConfig({ LOCAL_REGION: 'eu-west-1' }).provisioning.localRegion).toBe('eu-west-1');
    expect(readConfig({ LOCAL_REGION: ' ap-south-1 ' }).provisioning.localRegion).toBe('ap-south-1');
    expect(() => readConfig({ LOCAL_REGION: 'mars-1' })).toThrow(
      'LOCAL_REGION "mars-1" is not a region of Berth; use one of: us-east-1, us-west-2, eu-west-1,',
    );
    expect(() => readConfig({ LOCAL_REGION: 'EU-WEST-1' })).toThrow(
      'LOCAL_REGION "EU-WEST-1" is not a region',
    );
  });

  it('reads the database sizes and the disk reserve', () => {
    const config = readConfig({
      MYSQL_DISK_MB: '2048',
      POSTGRES_DISK_MB: '512',
      DISK_RESERVE_MB: '0',
      DISK_OVERCOMMIT: '2.5',
    });
    expect(config.provisioning).toMatchObject({
      mysqlDiskMb: 2048,
      postgresDiskMb: 512,
      diskReserveMb: 0,
      diskOvercommit: 2.5,
    });
  });

  it.each([
    ['MYSQL_DISK_MB', '32', 'MYSQL_DISK_MB must be at least 64'],
    ['POSTGRES_DISK_MB', '10', 'POSTGRES_DISK_MB must be at least 64 (an empty database takes about 8 MiB)'],
    ['SITES_DATABASE_MB', 'big', 'SITES_DATABASE_MB must be a number of MiB'],
    ['DISK_RESERVE_MB', '-1', 'DISK_RESERVE_MB must be at least 0'],
    ['DISK_RESERVE_MB', '2000000', 'DISK_RESERVE_MB must be at most 1048576 (1 TiB)'],
    ['DISK_OVERCOMMIT', '0.5', 'DISK_OVERCOMMIT must be at least 1 (1 promises only what the disk has)'],
    ['DISK_OVERCOMMIT', 'many', 'DISK_OVERCOMMIT must be a number'],
  ])('refuses %s=%s', (name, value, message) => {
    expect(() => readConfig({ [name]: value })).toThrow(message);
  });

  it.each([
    ['100', 'SITES_DISK_MB must be at least 256 (WordPress itself takes about 60 MiB)'],
    ['1.5', 'SITES_DISK_MB must be a whole number of MiB'],
    ['lots', 'SITES_DISK_MB must be a number of MiB'],
  ])('refuses SITES_DISK_MB=%s', (value, message) => {
    expect(() => readConfig({ SITES_DISK_MB: value })).toThrow(message);
  });

  it('reads the n8n disk size (1024 MiB by default) and the ranges instances may reach (none by default)', () => {
    expect(readConfig({}).provisioning).toMatchObject({ n8n: { diskMb: 1024 }, tenantEgressAllow: [] });
    expect(
      readConfig({ N8N_DISK_MB: '2048', TENANT_EGRESS_ALLOW: ' 10.20.0.0/16,192.168.5.7/32 ' }).provisioning,
    ).toMatchObject({ n8n: { diskMb: 2048 }, tenantEgressAllow: ['10.20.0.0/16', '192.168.5.7/32'] });
    expect(() => readConfig({ N8N_DISK_MB: '100' })).toThrow('N8N_DISK_MB must be at least 256');
  });

  it.each(['10.20.0.1/16', '10.0.0.0', '10.0.0.0/33', '300.0.0.0/8', 'fd00::/8', 'lan'])(
    'refuses TENANT_EGRESS_ALLOW=%s, saying which entry',
    (value) => {
      expect(() => readConfig({ TENANT_EGRESS_ALLOW: `10.1.0.0/16,${value}` })).toThrow(
        `TENANT_EGRESS_ALLOW must be comma-separated IPv4 CIDRs such as 10.20.0.0/16; "${value}" is not one`,
      );
    },
  );

  it('takes the credentials host from PUBLIC_URL, or INSTANCE_PUBLIC_HOST over it', () => {
    expect(readConfig({ PUBLIC_URL: 'https://berth.example.com' }).provisioning.publicHost).toBe(
      'berth.example.com',
    );
    expect(
      readConfig({ PUBLIC_URL: 'https://berth.example.com', INSTANCE_PUBLIC_HOST: 'db.example.com' })
        .provisioning.publicHost,
    ).toBe('db.example.com');
  });

  it("takes the instances' certificate and key together, or refuses one without the other", () => {
    expect(
      readConfig({ INSTANCE_TLS_CERT_FILE: '/etc/ssl/db.pem', INSTANCE_TLS_KEY_FILE: '/etc/ssl/db.key' })
        .provisioning.instanceTls,
    ).toEqual({ certFile: '/etc/ssl/db.pem', keyFile: '/etc/ssl/db.key' });
    expect(readConfig({}).provisioning.instanceTls).toBeUndefined();
    for (const half of [
      { INSTANCE_TLS_CERT_FILE: '/etc/ssl/db.pem' },
      { INSTANCE_TLS_KEY_FILE: '/etc/ssl/db.key' },
    ])
      expect(() => readConfig(half)).toThrow(
        'Invalid configuration:\n  INSTANCE_TLS_CERT_FILE, INSTANCE_TLS_KEY_FILE must be set together (or all left unset)',
      );
  });

  it('reads admin URLs, a provisioning directory and an encryption key', () => {
    const key = randomBytes(32);
    const config = readConfig({
      PROVISIONING_DATA_DIR: 'prov',
      MYSQL_ADMIN_URL: 'mysql://admin:pw@db:3306',
      POSTGRES_ADMIN_URL: 'postgresql://admin:pw@db:5432/postgres',
      MONGODB_ADMIN_URL: 'mongodb+srv://admin:pw@cluster.example.net',
      ENCRYPTION_KEY: key.toString('hex'),
    });
    expect(config.provisioning).toMatchObject({
      dataDir: path.resolve('prov'),
      mysqlAdminUrl: 'mysql://admin:pw@db:3306',
      postgresAdminUrl: 'postgresql://admin:pw@db:5432/postgres',
      mongodbAdminUrl: 'mongodb+srv://admin:pw@cluster.example.net',
    });
    expect(config.encryptionKey?.equals(key)).toBe(true);
  });

  it.each([
    [
      { PROVISIONER: 'kubernetes' },
      'PROVISIONER "kubernetes" is not available; this build has only: local, swarm, none',
    ],
    [{ MYSQL_ADMIN_URL: 'postgres://x' }, 'MYSQL_ADMIN_URL must be a mysql://user:password@host:port URL'],
    [{ POSTGRES_ADMIN_URL: 'mysql://x' }, 'POSTGRES_ADMIN_URL must be a postgres:// URL'],
    [{ MONGODB_ADMIN_URL: 'http://x' }, 'MONGODB_ADMIN_URL must be a mongodb:// or mongodb+srv:// URL'],
    [
      { ENCRYPTION_KEY: 'too-short' },
      'ENCRYPTION_KEY must be 32 bytes, written as 64 hex characters or in base64',
    ],
    [{ INSTANCE_PUBLIC_HOST: 'bad host/x' }, 'INSTANCE_PUBLIC_HOST must be a host name or IP address'],
    [{ SITES_BASE_DOMAIN: 'http://x' }, 'SITES_BASE_DOMAIN must be a domain name such as sites.example.com'],
    [{ SITES_HTTP_PORT: 'eighty' }, 'SITES_HTTP_PORT must be a port number'],
    [{ SFTP_PORT: '70000' }, 'SFTP_PORT must be 1 to 65535'],
    [{ SITES_TLS: 'letsencrypt' }, 'SITES_TLS must be internal or acme'],
    [{ SITES_LISTEN_HOST: 'localhost' }, 'SITES_LISTEN_HOST must be an IP address'],
    [{ PROVISIONER: 'swarm' }, 'PROVISIONER=swarm needs SWARM_REGIONS (which swarm serves which region)'],
    [
      { SWARM_REGIONS: 'mars-1=unix:///run/docker.sock' },
      'SWARM_REGIONS must be a comma-separated list of <region>=<Docker endpoint>',
    ],
    [{ SWARM_REGIONS: 'us-east-1=http://10.0.0.1:2375' }, 'SWARM_REGIONS must be a comma-separated list'],
    [{ SWARM_IMAGES: 'redis=redis:7' }, 'SWARM_IMAGES must be a comma-separated list of <type>=<image>'],
    [{ SWARM_IMAGES: 'mongodb=mongo:7' }, 'SWARM_IMAGES must be a comma-separated list of <type>=<image>'],
    [{ SWARM_ENCRYPTED_OVERLAYS: 'yes' }, 'SWARM_ENCRYPTED_OVERLAYS must be true or false'],
    [
      { PROVISIONER: 'swarm', SWARM_REGIONS: 'eu-west-1=tcp://10.0.2.5:2376' },
      'SWARM_TLS_DIR is needed for the tcp:// endpoint of eu-west-1',
    ],
    [
      { PROVISIONER: 'swarm', SWARM_REGIONS: 'eu-west-1=tcp://10.0.2.5:2376', SWARM_TLS_DIR: '/nonexistent' },
      'SWARM_TLS_DIR: /nonexistent/eu-west-1/ca.pem is missing (the TLS client files of eu-west-1)',
    ],
  ])('refuses %j clearly', (env, message) => {
    expect(() => readConfig(env)).toThrow(message);
  });
});

describe('swarm configuration', () => {
  it('reads one swarm per region, TLS files for tcp:// endpoints, images and the backups folder', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'berth-swarm-tls-'));
    await mkdir(path.join(dir, 'eu-west-1'));
    for (const name of ['ca.pem', 'cert.pem', 'key.pem'])
      await writeFile(path.join(dir, 'eu-west-1', name), 'x');
    const config = readConfig({
      PROVISIONER: 'swarm',
      SWARM_REGIONS: 'us-east-1=unix:///run/berth/use1.sock, eu-west-1=tcp://10.0.2.5:2376',
      SWARM_TLS_DIR: dir,
      SWARM_IMAGES: 'mysql=registry.example.com/berth/mariadb:11',
      SWARM_BACKUPS_DIR: '/srv/backups',
    });
    expect(config.provisioning.swarm).toEqual({
      regions: {
        'us-east-1': { endpoint: 'unix:///run/berth/use1.sock' },
        'eu-west-1': {
          endpoint: 'tcp://10.0.2.5:2376',
          tls: {
            ca: path.join(dir, 'eu-west-1/ca.pem'),
            cert: path.join(dir, 'eu-west-1/cert.pem'),
            key: path.join(dir, 'eu-west-1/key.pem'),
          },
        },
      },
      images: { mysql: 'registry.example.com/berth/mariadb:11' },
      backupsDir: '/srv/backups',
      encryptedOverlays: false,
    });
    await rm(dir, { recursive: true, force: true });
  });

  it('has no swarm unless PROVISIONER=swarm', () => {
    expect(readConfig({ SWARM_REGIONS: 'us-east-1=unix:///x.sock' }).provisioning.swarm).toBeUndefined();
  });
});

describe('payment providers configuration', () => {
  it('has no provider without keys (every method off)', () => {
    expect(readConfig({}).payments).toEqual({ stripe: undefined, paypal: undefined, ethereum: undefined });
  });

  it('reads Stripe, PayPal and the Ethereum RPC', () => {
    const { payments } = readConfig({
      STRIPE_SECRET_KEY: 'sk_live_abc',
      STRIPE_WEBHOOK_SECRET: 'whsec_abc',
      STRIPE_API_BASE: 'http://127.0.0.1:12111',
      PAYPAL_CLIENT_ID: 'id',
      PAYPAL_CLIENT_SECRET: 'secret',
      PAYPAL_WEBHOOK_ID: 'WH-1',
      PAYPAL_API_BASE: 'https://api-m.sandbox.paypal.com/',
      ETH_RPC_URL: 'https://ethereum-sepolia-rpc.publicnode.com',
      ETH_CONFIRMATIONS: '3',
    });
    expect(payments).toEqual({
      stripe: { secretKey: 'sk_live_abc', webhookSecret: 'whsec_abc', apiBase: 'http://127.0.0.1:12111' },
      paypal: {
        clientId: 'id',
        clientSecret: 'secret',
        webhookId: 'WH-1',
        apiBase: 'https://api-m.sandbox.paypal.com',
      },
      ethereum: { rpcUrl: 'https://ethereum-sepolia-rpc.publicnode.com', confirmations: 3 },
    });
  });

  it('refuses half a provider and malformed keys, saying which', () => {
    expect(() => readConfig({ STRIPE_SECRET_KEY: 'sk_test_1' })).toThrow(
      'STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET must be set together',
    );
    expect(() => readConfig({ PAYPAL_CLIENT_ID: 'id', PAYPAL_CLIENT_SECRET: 's' })).toThrow(
      'PAYPAL_CLIENT_ID, PAYPAL_CLIENT_SECRET, PAYPAL_WEBHOOK_ID must be set together',
    );
    expect(() => readConfig({ STRIPE_SECRET_KEY: 'pk_test_1', STRIPE_WEBHOOK_SECRET: 'whsec_1' })).toThrow(
      'STRIPE_SECRET_KEY must be a Stripe secret key',
    );
  });

  it('reads TRUSTED_PROXY (none by default) and refuses a malformed one, saying which entry', () => {
    expect(readConfig({}).trustedProxies.cidrs).toEqual([]);
    const config = readConfig({ TRUSTED_PROXY: '10.0.0.0/8, ::1' });
    expect(config.trustedProxies.cidrs).toEqual(['10.0.0.0/8', '::1/128']);
    expect(config.trustedProxies.has('10.9.8.7')).toBe(true);
    expect(() => readConfig({ TRUSTED_PROXY: '10.0.0.0/8, proxy.internal' })).toThrow(
      'TRUSTED_PROXY must be comma-separated IPv4/IPv6 addresses or CIDRs (such as 10.0.0.0/8, ::1); "proxy.internal" is not one',
    );
  });
});

describe('DNS resolver for custom-domain checks', () => {
  it('uses the system resolvers by default and reads a host:port list', () => {
    expect(readConfig({}).dnsServers).toBeUndefined();
    expect(readConfig({ DNS_RESOLVER: '1.1.1.1, 127.0.0.1:5353,[::1]:53,::1' }).dnsServers).toEqual([
      '1.1.1.1',
      '127.0.0.1:5353',
      '[::1]:53',
      '::1',
    ]);
  });

  it('refuses host names, bad ports and empty lists, saying what it takes', () => {
    for (const value of ['dns.example.com', '127.0.0.1:70000', '300.1.1.1', ' , ', '[::1]:x']) {
      expect(() => readConfig({ DNS_RESOLVER: value }), value).toThrow(
        'DNS_RESOLVER must be a comma-separated list of IP addresses with optional ports',
      );
    }
  });

  it('reads the affiliate minimum payout in currency units (default 50) as minor units', () => {
    expect(readConfig({}).affiliateMinimumPayoutMinor).toBe(5000);
    expect(readConfig({ AFFILIATE_MIN_PAYOUT: '12.5' }).affiliateMinimumPayoutMinor).toBe(1250);
    expect(() => readConfig({ AFFILIATE_MIN_PAYOUT: '0' })).toThrow('AFFILIATE_MIN_PAYOUT must be above 0');
    expect(() => readConfig({ AFFILIATE_MIN_PAYOUT: 'lots' })).toThrow(
      'AFFILIATE_MIN_PAYOUT must be an amount',
    );
  });
});
