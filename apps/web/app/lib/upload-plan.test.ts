import { describe, expect, it } from 'vitest';
import { emptyOutcome, failedAncestor, foldersOf, keepBothName, splitPath, uploadSummary, withName } from './upload-plan.ts';

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
    expect(uploadSummary({ ...emptyOutcome(), uploaded: 3, foldersCreated: 2 })).toEqual({
      type: 'success',
      title: 'Upload complete',
      message: '3 files uploaded, 2 folders created.',
    });
    expect(uploadSummary({ ...emptyOutcome(), uploaded: 1 }).message).toBe('1 file uploaded.');
  });

  it('says what failed and why, once', () => {
    expect(
      uploadSummary({
        ...emptyOutcome(),
        uploaded: 2,
        foldersCreated: 1,
        failures: [
          { path: 'pack/x.bin', message: 'The upload did not complete. Please try again.' },
          { path: 'pack/y.bin', message: 'The upload did not complete. Please try again.' },
        ],
      }),
    ).toEqual({
      type: 'warning',
      title: 'Upload incomplete',
      message: '2 files uploaded, 1 folder created, 2 failed. pack/x.bin: The upload did not complete. Please try again.',
    });
    expect(uploadSummary({ ...emptyOutcome(), notSent: 4 }).message).toBe('0 files uploaded, 4 not sent.');
  });

  it('counts what the answers to name conflicts did, the first count with its noun', () => {
    expect(uploadSummary({ ...emptyOutcome(), uploaded: 2, replaced: 1, skipped: 3 }).message).toBe(
      '2 files uploaded, 1 replaced, 3 skipped.',
    );
    expect(uploadSummary({ ...emptyOutcome(), replaced: 3 })).toEqual({
      type: 'success',
      title: 'Upload complete',
      message: '3 files replaced.',
    });
    expect(uploadSummary({ ...emptyOutcome(), skipped: 1 }).message).toBe('1 file skipped.');
  });

  it('says a cancelled upload was cancelled, what was done before, and that nothing of the file being sent was kept', () => {
    expect(uploadSummary({ ...emptyOutcome(), uploaded: 1, notSent: 2, cancelled: { file: 'world.zip' } })).toEqual({
      type: 'info',
      title: 'Upload cancelled',
      message: '1 file uploaded, 2 not sent. Nothing of world.zip was kept.',
    });
    expect(uploadSummary({ ...emptyOutcome(), notSent: 3, cancelled: {} }).message).toBe('0 files uploaded, 3 not sent.');
  });
});

describe('"Keep both"', () => {
  it('numbers the name before its extension with the first free number', () => {
    expect(keepBothName('world.zip', new Set(['world.zip']))).toBe('world (1).zip');
    expect(keepBothName('world.zip', new Set(['world.zip', 'world (1).zip', 'world (2).zip']))).toBe('world (3).zip');
    expect(keepBothName('world.zip', new Set(['world.zip', 'world (2).zip']))).toBe('world (1).zip');
  });

  it('keeps .tar.gz together and treats a leading dot or no dot as no extension', () => {
    expect(keepBothName('backup.tar.gz', new Set())).toBe('backup (1).tar.gz');
    expect(keepBothName('.env', new Set())).toBe('.env (1)');
    expect(keepBothName('README', new Set())).toBe('README (1)');
    expect(keepBothName('my.plugin.jar', new Set())).toBe('my.plugin (1).jar');
  });

  it('renames the last part of a path inside an uploaded folder', () => {
    expect(withName('pack/data/a.txt', 'a (1).txt')).toBe('pack/data/a (1).txt');
    expect(withName('a.txt', 'a (1).txt')).toBe('a (1).txt');
    expect(splitPath('pack/data/a.txt')).toEqual({ folder: 'pack/data', name: 'a.txt' });
    expect(splitPath('a.txt')).toEqual({ folder: '', name: 'a.txt' });
  });
});
