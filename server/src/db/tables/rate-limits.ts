export interface RateLimitTable {
  key: string;
  hits: number;
  reset_at: Date;
}
