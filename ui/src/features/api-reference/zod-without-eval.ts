import { config } from 'zod';

// Imported by the page (api-reference-page.tsx), so it runs before Scalar's own chunk loads. Scalar
// validates with Zod, whose first parse tries `new Function('')` to see whether it may compile validators;
// under the desktop app's content security policy (no 'unsafe-eval') that try is reported as a
// violation. Told beforehand, Zod never tries.
config({ jitless: true });
