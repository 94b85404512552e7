import { accountPlayTimeEvent, serverQueueEvent, type PlayTimeStatus } from '@spawnpoint/contracts';
import { createStore } from './store.ts';

/**
 * What the socket pushes about the free tier: each server's place in its node's start queue
 * (`server:queue`) and the account's play time today (`account:play-time`, with when it arrived, so a page
 * counts down from it). The server details give the first values; these replace them as they come.
 */
export interface FreeTierState {
  queue: Record<string, number | null>;
  playTime: { status: PlayTimeStatus; at: number } | null;
}

export const freeTierStore = createStore<FreeTierState>({ queue: {}, playTime: null });

export function receiveQueue(payload: unknown): void {
  const event = serverQueueEvent.safeParse(payload);
  if (!event.success) return;
  freeTierStore.set((s) => ({ ...s, queue: { ...s.queue, [event.data.serverId]: event.data.position } }));
}

export function receivePlayTime(payload: unknown, at = Date.now()): void {
  const event = accountPlayTimeEvent.safeParse(payload);
  if (event.success) freeTierStore.set((s) => ({ ...s, playTime: { status: event.data, at } }));
}

/** Seconds left today at `now`: counted down from the last figure while the account's servers run. */
export function remainingAt(playTime: { status: PlayTimeStatus; at: number }, now: number): number {
  const { status, at } = playTime;
  if (!status.counting) return status.remainingSeconds;
  return Math.max(0, status.remainingSeconds - Math.floor((now - at) / 1000));
}

/** "3 h 59 min", "12 min", "45 s". */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  return hours > 0 ? `${hours} h ${minutes} min` : `${minutes} min`;
}

/** "5 minutes", "1 minute", "30 seconds" (tests use fractions of a minute). */
export { formatMinutes } from '@spawnpoint/contracts';
