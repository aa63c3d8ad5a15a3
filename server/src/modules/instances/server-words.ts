// The customer's words for an instance whose server stopped answering (instance-live-states.ts sets
// them; a restore reads them: such an instance is deployed again before it is restored).

/** A node that stopped answering (it may come back). */
export const NODE_DOWN = 'Waiting for its server to come back';
/** How the status of an instance whose server is lost for good begins. */
export const SERVER_LOST = 'Its server was lost';
/** How the status of an instance begins when it could not be deployed again before its restore. */
export const NOT_DEPLOYED_AGAIN = 'Restore failed: the instance could not be deployed again';
