/**
 * How Berth runs each SQL engine in its image: the server's user, port, data folder, entrypoint and health
 * check, and the commands backups and restores run inside its container (as root over the socket for
 * MariaDB, whose root logs in by unix_socket; as postgres, by peer, for PostgreSQL). Database names come
 * from tenant-names.ts ([a-z0-9_] only), so they are safe inside these commands.
 */

type SqlType = 'mysql' | 'postgresql';

export interface Flavor {
  type: SqlType;
  image: 'mariadb' | 'postgres';
  user: 'mysql' | 'postgres';
  port: number;
  dataPath: string;
  command: string[];
  health: string[];
  /** Dump of the tenant database to stdout, run in the container (as `user`). */
  dump(database: string): { cmd: string[]; user: string };
  /** Load of a dump from stdin into a fresh tenant database. */
  load(database: string, user: string): { cmd: string[]; user: string };
  /** Drops and recreates the (empty) tenant database. */
  recreate(database: string, user: string): { cmd: string[]; user: string };
  /** Tables of the tenant database (a restore must bring back as many). */
  countTables(database: string): { cmd: string[]; user: string };
}

const MARIADB_SOCKET = '--socket=/run/mysqld/mysqld.sock';

export const FLAVORS: Record<SqlType, Flavor> = {
  mysql: {
    type: 'mysql',
    image: 'mariadb',
    user: 'mysql',
    port: 3306,
    dataPath: '/var/lib/mysql',
    command: ['/usr/local/bin/berth-mariadb'],
    health: ['CMD', 'mariadb-admin', MARIADB_SOCKET, '--silent', 'ping'],
    // root over the socket (unix_socket auth): exec as root inside the container.
    dump: (database) => ({
      cmd: [
        'mariadb-dump',
        MARIADB_SOCKET,
        '--single-transaction',
        '--quick',
        '--routines',
        '--triggers',
        '--hex-blob',
        '--default-character-set=utf8mb4',
        database,
      ],
      user: 'root',
    }),
    load: (database) => ({ cmd: ['mariadb', MARIADB_SOCKET, database], user: 'root' }),
    recreate: (database, user) => ({
      cmd: [
        'mariadb',
        MARIADB_SOCKET,
        '-e',
        `DROP DATABASE IF EXISTS \`${database}\`; CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci; GRANT ALL PRIVILEGES ON \`${database}\`.* TO '${user}'@'%';`,
      ],
      user: 'root',
    }),
    countTables: (database) => ({
      cmd: [
        'mariadb',
        MARIADB_SOCKET,
        '-N',
        '-e',
        `SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = '${database}'`,
      ],
      user: 'root',
    }),
  },
  postgresql: {
    type: 'postgresql',
    image: 'postgres',
    user: 'postgres',
    port: 5432,
    dataPath: '/var/lib/postgresql/data',
    command: ['/usr/local/bin/berth-postgres'],
    health: ['CMD', 'pg_isready', '-q', '-h', '/run/postgresql', '-U', 'postgres'],
    dump: (database) => ({
      cmd: ['pg_dump', '-h', '/run/postgresql', '-U', 'postgres', '--no-owner', '--no-privileges', database],
      user: 'postgres',
    }),
    // As the tenant's role, so everything it makes is the tenant's own.
    load: (database, user) => ({
      cmd: [
        'psql',
        '-X',
        '-q',
        '-v',
        'ON_ERROR_STOP=1',
        '-h',
        '/run/postgresql',
        '-U',
        'postgres',
        '-d',
        database,
        '-c',
        `SET ROLE "${user}"`,
        '-f',
        '-',
      ],
      user: 'postgres',
    }),
    recreate: (database, user) => ({
      cmd: [
        'sh',
        '-ec',
        `psql -X -q -h /run/postgresql -U postgres -d postgres -v ON_ERROR_STOP=1 -c 'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '"'"'${database}'"'"' AND pid <> pg_backend_pid()' -c 'DROP DATABASE IF EXISTS "${database}"' -c 'CREATE DATABASE "${database}" OWNER "${user}" ENCODING '"'"'UTF8'"'"' TEMPLATE template0' -c 'REVOKE ALL ON DATABASE "${database}" FROM PUBLIC'`,
      ],
      user: 'postgres',
    }),
    countTables: (database) => ({
      cmd: [
        'psql',
        '-X',
        '-At',
        '-h',
        '/run/postgresql',
        '-U',
        'postgres',
        '-d',
        database,
        '-c',
        "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')",
      ],
      user: 'postgres',
    }),
  },
};
