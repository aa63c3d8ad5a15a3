import RefreshIcon from '@mui/icons-material/Refresh';
import { Button } from '@mui/material';

/** What a Refresh button needs of a query: to fetch again, and whether it is fetching. */
interface Refetchable {
  refetch: () => Promise<unknown>;
  isFetching: boolean;
  isPending: boolean;
}

/** "Refresh": fetches the query again, showing its progress while a fetch after the first runs. */
export function RefreshButton({ query }: { query: Refetchable }) {
  return (
    <Button
      startIcon={<RefreshIcon />}
      onClick={() => void query.refetch()}
      loading={query.isFetching && !query.isPending}
    >
      Refresh
    </Button>
  );
}
