import { describe, expect, it } from 'vitest';
import { defaultSkinOf, javaUuidHashCode, md5, offlineUuid } from './players.ts';

const hex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');

describe('md5', () => {
  it('gives the digests of RFC 1321’s test suite', () => {
    const cases: [string, string][] = [
      ['', 'd41d8cd98f00b204e9800998ecf8427e'],
      ['a', '0cc175b9c0f1b6a831c399e269772661'],
      ['abc', '900150983cd24fb0d6963f7d28e17f72'],
      ['message digest', 'f96b697d7cb7938d525a2f31aaf161d0'],
      ['abcdefghijklmnopqrstuvwxyz', 'c3fcd3d76192e4007dfb496cca67e13b'],
      ['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 'd174ab98d277d9f5a5611c2c9f419d9f'],
      ['1234567890'.repeat(8), '57edf4a22be3c955ac49da2e2107b67a'],
    ];
    for (const [input, digest] of cases) expect(hex(md5(new TextEncoder().encode(input))), input).toBe(digest);
  });
});

// Expected values printed by Java 17 itself: UUID.nameUUIDFromBytes(("OfflinePlayer:" + name).getBytes(UTF_8)),
// its hashCode() and Math.floorMod(hashCode, 18).
const java: [name: string, uuid: string, hashCode: number, index: number][] = [
  ['Notch', 'b50ad385-829d-3141-a216-7e7d7539ba7f', -524802362, 4],
  ['jeb_', 'a762f560-4fce-3236-812a-b80efff0b62b', -1770600077, 1],
  ['Steve', '5627dd98-e6be-3c21-b8a8-e92344183641', 1277771483, 11],
  ['E2EBot', '7a80b032-6b13-3abb-bbc7-526a51bae203', -68273440, 2],
  ['a', '52428a0e-1e30-3cb1-976c-e728b2614047', 1769935312, 10],
  ['Grumm', '0a498edb-2bfa-3f61-83ff-018a9b0ecf3f', 960659215, 7],
  ['Ünïcødé', 'fec7b448-6897-3f89-9ff7-7137d6bd31c9', -551892161, 7],
  ['xX_Player_Xx', 'e29d6b3e-232c-3281-96e1-d0f664c56e35', 865462140, 0],
  ['Dream', 'e6135a83-d680-39d6-b4be-65a3d8bb97ad', 1553371483, 13],
];

describe('offlineUuid', () => {
  it('is the UUID an offline-mode server gives the name (as Java computes it)', () => {
    for (const [name, uuid] of java) expect(offlineUuid(name), name).toBe(uuid);
  });

  it('is a version 3 UUID of the IETF variant', () => {
    const uuid = offlineUuid('Anyone');
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-3[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('tells names apart by case, as the game does', () => {
    expect(offlineUuid('steve')).not.toBe(offlineUuid('Steve'));
  });
});

describe('defaultSkinOf', () => {
  it('hashes a UUID as Java’s UUID.hashCode()', () => {
    for (const [, uuid, hashCode] of java) expect(javaUuidHashCode(uuid), uuid).toBe(hashCode);
    // Online UUIDs (Notch's, jeb_'s), with and without dashes.
    expect(javaUuidHashCode('069a79f4-44e9-4726-a5be-fca90e38aaf5')).toBe(-369792882);
    expect(javaUuidHashCode('853c80ef3c3749fdaa49938b674adae6')).toBe(1946714239);
  });

  it('picks the skin the game picks: floorMod(hashCode, 18), slim alex…zuri then wide alex…zuri', () => {
    const names = ['alex', 'ari', 'efe', 'kai', 'makena', 'noor', 'steve', 'sunny', 'zuri'];
    for (const [name, uuid, , index] of java) {
      expect(defaultSkinOf(uuid), name).toEqual({ name: names[index % 9], model: index < 9 ? 'slim' : 'wide' });
    }
    // Negative hash codes wrap as Math.floorMod does, not as JavaScript's %: -524802362 → 4, slim makena.
    expect(defaultSkinOf(offlineUuid('Notch'))).toEqual({ name: 'makena', model: 'slim' });
    expect(defaultSkinOf(offlineUuid('Steve'))).toEqual({ name: 'efe', model: 'wide' });
    expect(defaultSkinOf('069a79f4-44e9-4726-a5be-fca90e38aaf5')).toEqual({ name: 'alex', model: 'slim' });
    expect(defaultSkinOf('00000000-0000-0000-0000-000000000000')).toEqual({ name: 'alex', model: 'slim' });
  });

  it('refuses what is not a UUID', () => {
    expect(() => defaultSkinOf('Steve')).toThrow(RangeError);
  });
});
