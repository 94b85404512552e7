import path from 'node:path';

// Set to true by the production build (scripts/build-services.ts); undefined when tsx runs the sources.
declare const SPAWNPOINT_BUILT: boolean | undefined;

/** Whether this code runs from the production build (`apps/api/dist`, plain node) rather than its TypeScript. */
export const runsBuilt = typeof SPAWNPOINT_BUILT === 'boolean' && SPAWNPOINT_BUILT;

/**
 * `apps/api`: this module is one folder below it both as a source file (`src/`) and inside the build
 * (`dist/main.js`), so files found from here (migrations, the web build) are found either way.
 */
export const apiRoot = path.resolve(import.meta.dirname, '..');
