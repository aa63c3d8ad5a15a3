import { errorResponse } from '../../lib/openapi-schemas.ts';
import { requireUser } from '../../middleware/auth.ts';

// The parts every /api/instances route shares: its tag, its sign-in, and the errors they answer with.

export const tags = ['Instances'];
export const signedIn = { security: [{ bearerAuth: [] }], middleware: requireUser };
export const notSignedIn = errorResponse('Not signed in');
export const notFound = errorResponse('No such instance of this user (`not_found`, "Instance not found")');

export const inactive = (message: string) =>
  errorResponse(`The subscription is inactive (\`subscription_inactive\`, "${message}")`);
/**
 * The words every route of a feature adds to its 409: the engine declares the feature unavailable on
 * this server (instance-features.ts), and the message is its reason.
 */
export const unavailableHere = (feature: string) =>
  `or this server does not offer ${feature} (the message and \`details.reason\` are the customer’s reason, the instance’s \`features\` has it too)`;
/** A synchronous driver call failed on the host: the spec's message, the details in the server log. */
export const driverFailed = (message: string) =>
  errorResponse(
    `The host failed the operation (\`operation_failed\`, "${message}"; \`details.requestId\` names the server log entry)`,
  );
