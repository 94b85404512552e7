import path from 'node:path';

/**
 * `apps/agent`: this module is one folder below it both as a source file (`src/`) and inside the
 * production build (`dist/main.js`, scripts/build-services.ts), so files found from here (the launcher's
 * source, the contracts it bundles) are found either way.
 */
export const agentRoot = path.resolve(import.meta.dirname, '..');
