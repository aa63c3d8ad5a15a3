/**
 * How Berth runs each SQL engine in its image: the server's user, port, data folder, entrypoint, health
 * check, and the one command the platform runs in its container as the server's admin: a restore's drop
 * and recreate of the (empty) tenant database. That command takes nothing from the tenant: database and
 * user names come from tenant-names.ts ([a-z0-9_] only), and PostgreSQL's session is given
 * `search_path=pg_catalog` by its connection options (PGOPTIONS), so no function, operator or aggregate a
 * tenant made can stand in for the catalog's. Everything that touches the tenant's data (dumps, loads,
 * table counts) logs in as the tenant (sql-backups.ts, wordpress-backups.ts).
 */

type SqlType = 'mysql' | 'postgresql';

export interface AdminCommand {
  cmd: string[];
  user: string;
  env: string[];
}

export interface Flavor {
  type: SqlType;
  image: 'mariadb' | 'postgres';
  user: 'mysql' | 'postgres';
  port: number;
  dataPath: string;
  /** Where its server's socket is (a tmpfs of its own: the root file system is read-only). */
  socketPath: string;
  command: string[];
  health: string[];
  /** Ends the tenant's sessions, drops and recreates its database, empty and its own. */
  recreate(database: string, user: string): AdminCommand;
}

const MARIADB_SOCKET = '--socket=/run/mysqld/mysqld.sock';

export const FLAVORS: Record<SqlType, Flavor> = {
  mysql: {
    type: 'mysql',
    image: 'mariadb',
    user: 'mysql',
    port: 3306,
    dataPath: '/var/lib/mysql',
    socketPath: '/run/mysqld',
    command: ['/usr/local/bin/berth-mariadb'],
    health: ['CMD', 'mariadb-admin', MARIADB_SOCKET, '--silent', 'ping'],
    // root over the socket (unix_socket auth): exec as root inside the container. The tenant's sessions
    // go first (one holding a lock would stall the drop).
    recreate: (database, user) => ({
      cmd: [
        'sh',
        '-ec',
        `mariadb ${MARIADB_SOCKET} -N -e "SELECT CONCAT('KILL ', id, ';') FROM information_schema.processlist WHERE user = '${user}'" | mariadb ${MARIADB_SOCKET} -f 2>/dev/null || true
mariadb ${MARIADB_SOCKET} -e "DROP DATABASE IF EXISTS \\\`${database}\\\`; CREATE DATABASE \\\`${database}\\\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci; GRANT ALL PRIVILEGES ON \\\`${database}\\\`.* TO '${user}'@'%';"`,
      ],
      user: 'root',
      env: [],
    }),
  },
  postgresql: {
    type: 'postgresql',
    image: 'postgres',
    user: 'postgres',
    port: 5432,
    dataPath: '/var/lib/postgresql/data',
    socketPath: '/run/postgresql',
    command: ['/usr/local/bin/berth-postgres'],
    health: ['CMD', 'pg_isready', '-q', '-h', '/run/postgresql', '-U', 'postgres'],
    recreate: (database, user) => ({
      cmd: [
        'psql',
        '-X',
        '-q',
        '-h',
        '/run/postgresql',
        '-U',
        'postgres',
        '-d',
        'postgres',
        '-v',
        'ON_ERROR_STOP=1',
        '-c',
        `SELECT pg_catalog.pg_terminate_backend(pid) FROM pg_catalog.pg_stat_activity WHERE datname = '${database}' AND pid OPERATOR(pg_catalog.<>) pg_catalog.pg_backend_pid()`,
        '-c',
        `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`,
        '-c',
        `CREATE DATABASE "${database}" OWNER "${user}" ENCODING 'UTF8' TEMPLATE template0`,
        '-c',
        `REVOKE ALL ON DATABASE "${database}" FROM PUBLIC`,
      ],
      user: 'postgres',
      env: ['PGOPTIONS=-c search_path=pg_catalog'],
    }),
  },
};
