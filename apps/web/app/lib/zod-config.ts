/**
 * Imported first by every entry (root.tsx, the site script), before any schema is built: our
 * Content-Security-Policy forbids eval, so zod must not compile parsers with `new Function` (its probe
 * alone is reported as a CSP violation and costs a long task on page load).
 */
import { z } from 'zod';

z.config({ jitless: true });
