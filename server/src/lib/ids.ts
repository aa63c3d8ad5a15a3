const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `id` can be a row id (uuid): anything else is "not found" without asking PostgreSQL. */
export const isUuid = (id: string | undefined | null): id is string =>
  typeof id === 'string' && UUID.test(id);
