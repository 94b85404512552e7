import { describe, expect, it } from 'vitest';
import { failedAncestor, foldersOf, uploadSummary } from './upload-plan.ts';

describe('folders of an upload', () => {
  it('asks for each folder once, parents first', () => {
    expect(foldersOf(['pack/a.txt', 'pack/data/b.txt', 'pack/data/deep/c.txt', 'pack/data/d.txt', 'top.txt'])).toEqual([
      'pack',
      'pack/data',
      'pack/data/deep',
    ]);
    expect(foldersOf(['one.txt', 'two.txt'])).toEqual([]);
  });

  it('finds the failed folder that holds a file', () => {
    expect(failedAncestor('pack/data/deep/c.txt', new Set(['pack/data']))).toBe('pack/data');
    expect(failedAncestor('pack/a.txt', new Set(['pack/data']))).toBeUndefined();
  });
});

describe('the upload toast', () => {
  it('counts what happened', () => {
    expect(uploadSummary({ uploaded: 3, foldersCreated: 2, failures: [], notSent: 0 })).toEqual({
      type: 'success',
      title: 'Upload complete',
      message: '3 files uploaded, 2 folders created.',
    });
    expect(uploadSummary({ uploaded: 1, foldersCreated: 0, failures: [], notSent: 0 }).message).toBe('1 file uploaded.');
  });

  it('says what failed and why, once', () => {
    expect(
      uploadSummary({
        uploaded: 2,
        foldersCreated: 1,
        failures: [
          { path: 'pack/x.bin', message: 'The upload did not complete. Please try again.' },
          { path: 'pack/y.bin', message: 'The upload did not complete. Please try again.' },
        ],
        notSent: 0,
      }),
    ).toEqual({
      type: 'warning',
      title: 'Upload incomplete',
      message: '2 files uploaded, 1 folder created, 2 failed. pack/x.bin: The upload did not complete. Please try again.',
    });
    expect(uploadSummary({ uploaded: 0, foldersCreated: 0, failures: [], notSent: 4 }).message).toBe('0 files uploaded, 4 not sent.');
  });
});
