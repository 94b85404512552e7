import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  BROWSER_MESSAGE_BYTES_MAX,
  CONSOLE_SUBSCRIBERS_PER_SERVER_MAX,
  DOWNLOAD_LINK_SECONDS,
  SOCKET_AUTH_TIMEOUT_MS,
  SOCKET_TOKEN_TTL_MS,
  SOCKETS_PER_SESSION_MAX,
  SOCKETS_PER_USER_MAX,
  PLAYER_NAME_SHOWN_MAX,
  PLAYERS_LISTED_MAX,
  STATS_HISTORY_MS,
  STATS_HISTORY_SAMPLES_MAX,
} from '@spawnpoint/contracts';
import { describe, expect, it } from 'vitest';
import { CAGE_TMP_BYTES } from '../apps/agent/src/cage/cage.ts';
import { GAME_PIDS_MAX } from '../apps/agent/src/cage/cgroups.ts';
import { OUTBOX_MAX_LINES } from '../apps/agent/src/server/console-outbox.ts';
import { PLAYER_LIST_MAX_BYTES, PLAYER_LIST_MAX_ENTRIES } from '../apps/agent/src/server/player-lists.ts';
import { MAX_DEPTH, MEASURE_MAX_AGE_MS } from '../apps/agent/src/files/sandbox.ts';
import { limitRules } from '../apps/api/src/http/rate-limits.ts';
import { HELD_BYTES_MAX, PROXY_DEFAULTS } from '../apps/proxy/src/join-proxy.ts';
import { HANDSHAKE_MAX_BYTES } from '../apps/proxy/src/protocol.ts';

/**
 * The limits the guide (docs/guide.md) and the security document promise are the ones the code enforces: each figure
 * below is read from the constant the code uses and must appear in both documents' limits tables.
 */
const root = path.resolve(import.meta.dirname, '..');
const documents = ['docs/guide.md', 'docs/security.md'].map((file) => ({ file, text: readFileSync(path.join(root, file), 'utf8') }));

const count = (n: number) => n.toLocaleString('en-US');
const perWindow = (rule: { max: number; window: number }) => {
  const minutes = rule.window / 60_000;
  if (minutes === 1) return `${rule.max}/min`;
  if (minutes === 60) return `${rule.max}/h`;
  return `${rule.max} per ${minutes} min`;
};

const promised: [string, string][] = [
  ['sockets per session', `${SOCKETS_PER_SESSION_MAX} per session`],
  ['sockets per account', `${SOCKETS_PER_USER_MAX} per account`],
  ['console subscribers', `${CONSOLE_SUBSCRIBERS_PER_SERVER_MAX} console subscribers per server`],
  ['stats history', `stats of the last ${STATS_HISTORY_MS / 60_000} min (${STATS_HISTORY_SAMPLES_MAX} samples) per running server`],
  ['status ping names', `${PLAYERS_LISTED_MAX} player names of ${PLAYER_NAME_SHOWN_MAX} characters kept from a game's status ping`],
  ['browser message size', `${BROWSER_MESSAGE_BYTES_MAX / 1024} KiB per message`],
  ['socket token lifetime', `${SOCKET_TOKEN_TTL_MS / 1000} s`],
  ['socket auth time', `within ${SOCKET_AUTH_TIMEOUT_MS / 1000} s`],
  ['download link lifetime', `download links ${DOWNLOAD_LINK_SECONDS} s`],
  ['path depth', `${MAX_DEPTH} folders deep`],
  ['quota measurement age', `after ${MEASURE_MAX_AGE_MS / 1000} s`],
  ['player lists', `${PLAYER_LIST_MAX_BYTES / 1024} KiB and ${count(PLAYER_LIST_MAX_ENTRIES)} entries per player list`],
  ['agent outbox', `${count(OUTBOX_MAX_LINES)} lines waiting for the API`],
  ['game processes', `${count(GAME_PIDS_MAX)} processes per server; private /tmp ${CAGE_TMP_BYTES / 1024 / 1024} MiB`],
  ['requests per address', `${perWindow(limitRules.apiPerIp)} per address`],
  ['sign-in per address', `sign-in ${perWindow(limitRules.loginPerIp)} per address`],
  ['sign-in per account', `${perWindow(limitRules.loginPerAccountAndIp)} per account+address`],
  ['registration', `registration ${perWindow(limitRules.registerPerIp)}`],
  ['two-factor', `two-factor ${perWindow(limitRules.twoFactorPerAccount)}`],
  ['email change', `email change ${perWindow(limitRules.emailChangePerAccount)}`],
  ['backups', `backups ${limitRules.backupsPerServer.max} per ${limitRules.backupsPerServer.window / 60_000} min per server`],
  [
    'join proxy',
    `handshake within ${PROXY_DEFAULTS.handshakeTimeoutMs / 1000} s and at most ${HANDSHAKE_MAX_BYTES / 1024} KiB; ` +
      `${PROXY_DEFAULTS.connectionsPerSecondPerAddress} new connections per address per second; ` +
      `${PROXY_DEFAULTS.maxConnectionsPerAddress} open per address (an IPv6 /64); ` +
      `${count(PROXY_DEFAULTS.maxConnections)} open connections; a held login ${HELD_BYTES_MAX / 1024} KiB and ${PROXY_DEFAULTS.holdMs / 1000} s`,
  ],
];

describe('documented limits', () => {
  for (const { file, text } of documents)
    it.each(promised)(`${file} states the %s the code enforces`, (_what, phrase) => {
      expect(text.replace(/\s+/g, ' ')).toContain(phrase);
    });
});
