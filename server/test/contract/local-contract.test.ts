import { describeDriverContract } from './driver-contract.ts';
import { localHarness } from './local-harness.ts';

/**
 * The driver contract (driver-contract.ts) on the local driver: every capability × type through the API
 * with the customers' real clients, its table in .vitest-results/contract-local.md.
 */
describeDriverContract(localHarness);
