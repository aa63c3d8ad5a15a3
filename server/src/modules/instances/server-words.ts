import { SERVER_GONE } from '@berth/openapi/rules';

// The customer's words for an instance whose server stopped answering (instance-live-states.ts sets
// them; a restore reads them through `serverGone` of @berth/openapi/rules, which the UI uses too).

/** A node that stopped answering (it may come back). */
export const NODE_DOWN = SERVER_GONE.down;
/** How the status of an instance whose server is lost for good begins. */
export const SERVER_LOST = SERVER_GONE.lost;
/** How the status of an instance begins when it could not be deployed again before its restore. */
export const NOT_DEPLOYED_AGAIN = SERVER_GONE.notDeployedAgain;
