import type { Resources } from '../../engine.ts';
import type { AppliedLimit } from '../../usage.ts';

/**
 * What a tenant of a shared database server gets for the memory and vCPUs it was sold. The server's
 * memory and CPU are shared by all its tenants (no control group can split one mariadbd or postgres
 * between them); what each engine itself bounds per tenant is set on the tenant's user or role at every
 * deploy:
 *
 * - MariaDB (per-user resource limits): `MAX_USER_CONNECTIONS` (enforced: the next login is refused)
 *   and `MAX_STATEMENT_TIME`, which only sets the session's `max_statement_time` (a session may change
 *   it: measured; the card says so);
 * - PostgreSQL: `CONNECTION LIMIT` (enforced) and `temp_file_limit` (enforced: only a superuser may
 *   change it, and tenants are not), plus `statement_timeout` and `work_mem` as the role's defaults
 *   (USERSET parameters: a session may change them; the card says so).
 */
export interface TenantLimits {
  /** Connections at once: 10 per vCPU, at least 5. */
  connections: number;
  /** A statement is stopped after this long, unless its session chose otherwise. */
  statementSeconds: number;
  /** PostgreSQL: memory per sort or hash before it spills to disk (1/64 of the memory, 4–64 MB). */
  workMemMb: number;
  /** PostgreSQL: temporary files one session may hold (a quarter of the memory, at least 256 MB). */
  tempFilesMb: number;
}

export function tenantLimits(resources: Resources): TenantLimits {
  return {
    connections: Math.max(5, Math.round(resources.cpus * 10)),
    statementSeconds: 120,
    workMemMb: Math.min(64, Math.max(4, Math.floor(resources.memoryMb / 64))),
    tempFilesMb: Math.max(256, Math.floor(resources.memoryMb / 4)),
  };
}

/** The Configuration card's rows for a MySQL or PostgreSQL instance on a shared server. */
export function describeTenantLimits(type: 'mysql' | 'postgresql', resources: Resources): AppliedLimit[] {
  const limits = tenantLimits(resources);
  const shared: AppliedLimit[] = [
    {
      label: 'Memory',
      value: 'Shared with the other databases on this server; not reserved for this instance',
      enforced: false,
    },
    {
      label: 'CPU',
      value: 'Shared with the other databases on this server; not reserved for this instance',
      enforced: false,
    },
    { label: 'Connections', value: `At most ${limits.connections} at once`, enforced: true },
  ];
  const statementTime: AppliedLimit = {
    label: 'Statement time',
    value: `Stopped after ${limits.statementSeconds} seconds by default (a session may change it)`,
    enforced: false,
  };
  if (type === 'mysql') return [...shared, statementTime];
  return [
    ...shared,
    { label: 'Temporary files', value: `At most ${limits.tempFilesMb} MB per session`, enforced: true },
    statementTime,
    {
      label: 'Sort memory',
      value: `${limits.workMemMb} MB per sort or hash by default (a session may change it)`,
      enforced: false,
    },
  ];
}
