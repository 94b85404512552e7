import { describe, expect, it } from 'vitest';
import { backspace, emptyToken, typeInto } from './token-input.ts';

describe('two-factor token boxes', () => {
  it('advances focus after a digit', () => {
    expect(typeInto(emptyToken(), 0, '4')).toEqual({ digits: ['4', '', '', '', '', ''], focus: 1, complete: false });
  });

  it('clears a non-digit and keeps focus', () => {
    const state = typeInto(['1', '', '', '', '', ''], 1, 'x');
    expect(state).toEqual({ digits: ['1', '', '', '', '', ''], focus: 1, complete: false });
  });

  it('completes on the sixth digit', () => {
    let digits = emptyToken();
    let state = typeInto(digits, 0, '1');
    for (const [i, d] of ['2', '3', '4', '5'].entries()) {
      state = typeInto(state.digits, i + 1, d);
      expect(state.complete).toBe(false);
    }
    state = typeInto(state.digits, 5, '6');
    expect(state).toEqual({ digits: ['1', '2', '3', '4', '5', '6'], focus: 5, complete: true });
    digits = state.digits;
    expect(digits.join('')).toBe('123456');
  });

  it('fills the boxes from a paste, ignoring other characters', () => {
    expect(typeInto(emptyToken(), 0, '12 34-56')).toEqual({ digits: ['1', '2', '3', '4', '5', '6'], focus: 5, complete: true });
    expect(typeInto(emptyToken(), 2, '999')).toEqual({ digits: ['', '', '9', '9', '9', ''], focus: 5, complete: false });
  });

  it('Backspace clears the box, and on an empty box goes back', () => {
    expect(backspace(['1', '2', '3', '', '', ''], 2)).toEqual({ digits: ['1', '2', '', '', '', ''], focus: 2, complete: false });
    expect(backspace(['1', '2', '', '', '', ''], 2)).toEqual({ digits: ['1', '', '', '', '', ''], focus: 1, complete: false });
    expect(backspace(emptyToken(), 0)).toEqual({ digits: emptyToken(), focus: 0, complete: false });
  });
});
