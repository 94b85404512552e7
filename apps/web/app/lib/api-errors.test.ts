import { errorCodes, errorMessage } from '@spawnpoint/contracts';
import { describe, expect, it } from 'vitest';
import { failureEffect } from './api-errors.ts';
import { detailsShownIn } from './environment.ts';

describe('failureEffect', () => {
  it('opens the disk limit dialog instead of a toast', () => {
    expect(failureEffect({ code: 'DISK_LIMIT', message: errorMessage('DISK_LIMIT') })).toEqual({ kind: 'disk-limit-dialog' });
    // A refused upload says what happened to it, not that the server will not start.
    const upload =
      'big.bin (1.7 GB) does not fit: this server has 300 MB free of 2.0 GB. Delete files or upgrade the plan, then upload it again.';
    expect(failureEffect({ code: 'DISK_LIMIT', message: upload })).toEqual({ kind: 'disk-limit-dialog', message: upload });
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

describe('details of unexpected failures', () => {
  const internal = {
    code: 'INTERNAL_ERROR' as const,
    message: errorMessage('INTERNAL_ERROR'),
    details: 'Error: connect ECONNREFUSED 127.0.0.1:5432\n    at connect (db.ts:1:1)',
  };

  it('outside production shows the details under the message', () => {
    expect(failureEffect(internal, true)).toEqual({
      kind: 'toast',
      title: 'Whoopsie!',
      message: `${errorMessage('INTERNAL_ERROR')}\nError: connect ECONNREFUSED 127.0.0.1:5432\n    at connect (db.ts:1:1)`,
    });
  });

  it('in production shows only the message', () => {
    expect(failureEffect(internal, false)).toEqual({ kind: 'toast', title: 'Whoopsie!', message: errorMessage('INTERNAL_ERROR') });
  });

  it('keeps a long stack to its first lines', () => {
    const stack = ['Error: boom', ...Array.from({ length: 20 }, (_, i) => `    at frame${i} (x.ts:${i}:1)`)].join('\n');
    const effect = failureEffect({ ...internal, details: stack }, true);
    expect(effect.kind === 'toast' && effect.message.split('\n')).toHaveLength(5);
  });
});

describe('which environment shows details', () => {
  it('is whatever the API says it runs as; a page without the tag counts as production', () => {
    expect(detailsShownIn('development', false)).toBe(true);
    expect(detailsShownIn('test', false)).toBe(true);
    expect(detailsShownIn('production', false)).toBe(false);
    expect(detailsShownIn(null, false)).toBe(false);
  });

  it("is always development on Vite's dev server", () => {
    expect(detailsShownIn(null, true)).toBe(true);
  });
});
