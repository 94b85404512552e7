/**
 * Operator commands, run next to a running API: `npm run operator -- lock <email>` / `unlock <email>` /
 * `draw-giveaway <slug>`.
 * They go through the API (PGlite allows one process per database), authenticated with the operator
 * token the API keeps in DATA_DIR/operator-token (or OPERATOR_TOKEN).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from './config.ts';

const [command, arg] = process.argv.slice(2);
if ((command !== 'lock' && command !== 'unlock' && command !== 'draw-giveaway') || !arg) {
  console.error('Usage: npm run operator -- lock <email> | unlock <email> | draw-giveaway <slug>');
  process.exit(2);
}
const config = loadConfig();
const token = config.OPERATOR_TOKEN ?? readFileSync(path.join(config.dataDir, 'operator-token'), 'utf8').trim();
const [url, body] =
  command === 'draw-giveaway'
    ? ['/v1/operator/giveaways/draw', { slug: arg }]
    : ['/v1/operator/accounts/lock', { emailAddress: arg, locked: command === 'lock' }];
const response = await fetch(`http://127.0.0.1:${config.PORT}${url}`, {
  method: 'POST',
  headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  body: JSON.stringify(body),
}).catch(() => null);
if (!response) {
  console.error(`The API is not answering on port ${config.PORT}. Start it first (npm start).`);
  process.exit(1);
}
const answer = (await response.json()) as {
  status: string;
  message?: string;
  result?: { sessionsEnded?: number; seed?: string; entries?: number; winners?: number };
};
if (answer.status !== 'SUCCESS') {
  console.error(answer.message ?? answer.status);
  process.exit(1);
}
if (command === 'draw-giveaway')
  console.log(`Drew ${answer.result?.winners} winner(s) from ${answer.result?.entries} entries with seed ${answer.result?.seed}.`);
else console.log(command === 'lock' ? `Locked ${arg}; ended ${answer.result?.sessionsEnded ?? 0} session(s).` : `Unlocked ${arg}.`);
