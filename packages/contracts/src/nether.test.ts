import { describe, expect, it } from 'vitest';
import { convertCoordinates, teleportCommand } from './nether.ts';

describe('nether portal maths', () => {
  it('divides x and z by 8 from the Overworld, flooring toward negative infinity', () => {
    expect(convertCoordinates('overworld', { x: 800, y: 64, z: -800 })).toEqual({ dimension: 'nether', x: 100, y: 64, z: -100 });
    expect(convertCoordinates('overworld', { x: 7, y: 64, z: -1 })).toEqual({ dimension: 'nether', x: 0, y: 64, z: -1 });
    expect(convertCoordinates('overworld', { x: -9, y: 64, z: 15 })).toEqual({ dimension: 'nether', x: -2, y: 64, z: 1 });
  });

  it('multiplies by 8 from the Nether', () => {
    expect(convertCoordinates('nether', { x: 100, y: 70, z: -25 })).toEqual({ dimension: 'overworld', x: 800, y: 70, z: -200 });
    expect(convertCoordinates('nether', { x: -0.5, y: 70, z: 2.9 })).toEqual({ dimension: 'overworld', x: -8, y: 70, z: 16 });
  });

  it('keeps y within the target dimension', () => {
    expect(convertCoordinates('overworld', { x: 0, y: 200, z: 0 }).y).toBe(126);
    expect(convertCoordinates('overworld', { x: 0, y: -40, z: 0 }).y).toBe(1);
    expect(convertCoordinates('nether', { x: 0, y: 500, z: 0 }).y).toBe(319);
  });

  it('makes a /tp-ready command', () => {
    expect(teleportCommand({ x: 100, y: 64, z: -100 })).toBe('/tp @s 100 64 -100');
  });
});
