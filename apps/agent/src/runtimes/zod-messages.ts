/**
 * zod's small build (`zod/mini`) is what the built-in runtime's launcher parses with at every start (its
 * settings, the player lists): the full build with the contracts' schemas took ≈ 20 ms of each start to
 * load. The small build carries no messages; this gives it the English ones the full build has, so a
 * skipped entry still says why. Imported for that effect only: importing zod's namespace from here would
 * keep all of it (every locale) in the launcher's file.
 */
import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

config(en());
