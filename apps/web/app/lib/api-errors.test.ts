import { errorCodes, errorMessage } from '@spawnpoint/contracts';
import { describe, expect, it } from 'vitest';
import { failureEffect } from './api-errors.ts';

describe('failureEffect (spec §8)', () => {
  it('opens the disk limit dialog instead of a toast', () => {
    expect(failureEffect({ code: 'DISK_LIMIT', message: errorMessage('DISK_LIMIT') })).toEqual({ kind: 'disk-limit-dialog' });
  });

  it('signs out without a toast on NOT_AUTHENTICATED', () => {
    expect(failureEffect({ code: 'NOT_AUTHENTICATED', message: '' })).toEqual({ kind: 'sign-out' });
  });

  it('rejects SERVER_LOCKED silently', () => {
    expect(failureEffect({ code: 'SERVER_LOCKED', message: '' })).toEqual({ kind: 'silent' });
  });

  it("shows every other catalogue code as a 'Whoopsie!' toast with its message", () => {
    const special = new Set(['DISK_LIMIT', 'NOT_AUTHENTICATED', 'SERVER_LOCKED']);
    for (const code of errorCodes.filter((c) => !special.has(c))) {
      expect(failureEffect({ code, message: errorMessage(code) })).toEqual({
        kind: 'toast',
        title: 'Whoopsie!',
        message: errorMessage(code),
      });
    }
  });

  it('shows a message the server wrote itself raw', () => {
    expect(failureEffect({ code: 'INVALID_INPUT', message: 'This link is invalid or has expired. Please request a new one.' })).toEqual({
      kind: 'toast',
      title: 'Whoopsie!',
      message: 'This link is invalid or has expired. Please request a new one.',
    });
  });
});
