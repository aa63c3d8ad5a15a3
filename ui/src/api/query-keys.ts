/** Every TanStack Query key of the UI, built from one place. */
export const authKeys = {
  all: ['auth'] as const,
  profile: () => [...authKeys.all, 'profile'] as const,
};

export const subscriptionKeys = {
  all: ['subscriptions'] as const,
  status: () => [...subscriptionKeys.all, 'status'] as const,
  canCreate: () => [...subscriptionKeys.all, 'can-create-instance'] as const,
};

export const paymentKeys = {
  all: ['payments'] as const,
  settings: () => [...paymentKeys.all, 'settings'] as const,
  billingHistory: () => [...paymentKeys.all, 'billing-history'] as const,
};

export const configKeys = {
  all: ['config'] as const,
  public: () => [...configKeys.all, 'public'] as const,
};

export const notificationKeys = {
  all: ['notifications'] as const,
  list: () => [...notificationKeys.all, 'list'] as const,
};

export const passwordResetKeys = {
  all: ['password-reset'] as const,
  verify: (token: string) => [...passwordResetKeys.all, 'verify', token] as const,
};

/** One page of the instance list: `search` is the trimmed term ('' for none). */
/** One page of a searchable list (instances, the admin's users). */
export interface PageParams {
  page: number;
  limit: number;
  search: string;
}

/** PageParams as the list routes read them from the query string (no `search` when empty). */
export const pageQuery = (params: PageParams) => ({
  page: String(params.page),
  limit: String(params.limit),
  ...(params.search ? { search: params.search } : {}),
});

export type InstanceListParams = PageParams;

/** The static WordPress add-on list of the web app (never cached). */
export const addonKeys = { all: ['wp-addons'] as const };

export const instanceKeys = {
  all: ['instances'] as const,
  lists: () => [...instanceKeys.all, 'list'] as const,
  list: (params: InstanceListParams) => [...instanceKeys.lists(), params] as const,
  details: () => [...instanceKeys.all, 'detail'] as const,
  detail: (id: string) => [...instanceKeys.details(), id] as const,
  accesses: () => [...instanceKeys.all, 'access'] as const,
  access: (id: string) => [...instanceKeys.accesses(), id] as const,
  capabilities: () => [...instanceKeys.all, 'capabilities'] as const,
  backups: (id: string) => [...instanceKeys.all, 'backups', id] as const,
  /** The backups of the user's deleted instances. */
  deletedBackups: () => [...instanceKeys.all, 'deleted-backups'] as const,
  /** The last restore progress the live stream sent for the instance (no request behind it). */
  restore: (id: string) => [...instanceKeys.all, 'restore', id] as const,
  storage: (id: string) => [...instanceKeys.all, 'storage', id] as const,
  ssl: (id: string) => [...instanceKeys.all, 'ssl', id] as const,
  usage: (id: string) => [...instanceKeys.all, 'usage', id] as const,
  usageRange: (id: string, range: string) => [...instanceKeys.usage(id), range] as const,
};

/** One page of the admin user list: `search` is the trimmed term ('' for none). */
export type AdminUserListParams = PageParams;

export const adminKeys = {
  all: ['admin'] as const,
  paymentSettings: () => [...adminKeys.all, 'payment-settings'] as const,
  capabilities: () => [...adminKeys.all, 'capabilities'] as const,
  regions: () => [...adminKeys.all, 'regions'] as const,
  capacity: () => [...adminKeys.all, 'capacity'] as const,
  metamaskOrders: () => [...adminKeys.all, 'metamask-orders'] as const,
  metamaskOrderList: (status: string) => [...adminKeys.metamaskOrders(), status] as const,
  users: () => [...adminKeys.all, 'users'] as const,
  userList: (params: AdminUserListParams) => [...adminKeys.users(), params] as const,
  affiliatePayouts: () => [...adminKeys.all, 'affiliate-payouts'] as const,
  affiliatePayoutList: (status: string) => [...adminKeys.affiliatePayouts(), status] as const,
};

export const affiliateKeys = {
  all: ['affiliates'] as const,
  dashboard: () => [...affiliateKeys.all, 'dashboard'] as const,
  me: () => [...affiliateKeys.all, 'me'] as const,
  stats: (year: number) => [...affiliateKeys.all, 'stats', year] as const,
  payouts: () => [...affiliateKeys.all, 'payouts'] as const,
};

/** One page of the admin's ticket list. */
export interface TicketListParams {
  q: string;
  status: '' | 'open' | 'answered' | 'closed';
  category: '' | 'general' | 'technical' | 'billing' | 'feature' | 'bug';
  /** 'due': open tickets first, the one due soonest on top (the server's default); 'newest'. */
  sort: 'due' | 'newest';
  page: number;
  limit: number;
}

export const helpKeys = {
  all: ['help'] as const,
  mine: () => [...helpKeys.all, 'my'] as const,
  allTickets: () => [...helpKeys.all, 'all'] as const,
  allList: (params: TicketListParams) => [...helpKeys.allTickets(), params] as const,
  image: (url: string) => [...helpKeys.all, 'image', url] as const,
  users: (search: string) => [...helpKeys.all, 'users', search] as const,
  notificationsConfig: () => [...helpKeys.all, 'notifications-config'] as const,
};

export const apiKeyKeys = {
  all: ['api-keys'] as const,
  list: () => [...apiKeyKeys.all, 'list'] as const,
};
