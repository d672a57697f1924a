/**
 * src/serialize/json-arena.ts and the list envelope (src/serialize/list.ts): remembered encodings
 * live in one arena written round and round; a returned view is valid until the next `get`, and
 * `jsonEnvelope` copies each item before asking for the next, so an item overwritten by the next
 * one's encoding still reaches the response intact.
 */
import { describe, expect, it } from 'vitest';
import { JsonArena } from '../../src/serialize/json-arena.js';
import { jsonEnvelope, withJsonMember } from '../../src/serialize/list.js';

const item = (name: string, size: number): string =>
  JSON.stringify({ name, pad: name.repeat(size) })
    .slice(0, size - 2)
    .padEnd(size - 2, ' ') + '"}';
const doc = (name: string) => ({ name });

describe('JsonArena', () => {
  it('remembers an encoding per document and key until it is written over, first in first out', () => {
    const arena = new JsonArena<{ name: string }, number>(1024, 400);
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map(doc) as [ReturnType<typeof doc>, ReturnType<typeof doc>, ReturnType<typeof doc>, ReturnType<typeof doc>];
    let encodings = 0;
    const get = (target: { name: string }, meta = 0) =>
      arena
        .get(
          target,
          'k',
          meta,
          (m) => m === meta,
          () => {
            encodings += 1;
            return JSON.stringify({ name: target.name, pad: 'x'.repeat(280) });
          },
        )
        .toString();
    const first = get(a);
    get(b);
    get(c);
    expect(encodings).toBe(3);
    expect(get(a)).toBe(first);
    expect(encodings).toBe(3);
    // A changed dependency (meta) re-encodes.
    get(b, 1);
    expect(encodings).toBe(4);
    // d wraps around and overwrites the oldest (a): a is encoded again when asked for.
    get(d);
    get(a);
    expect(encodings).toBe(6);
    expect(arena.size).toBeLessThanOrEqual(3);
  });

  it('does not keep items over the size limit, and still returns them', () => {
    const arena = new JsonArena<{ name: string }, null>(1024, 100);
    const big = JSON.stringify({ pad: 'y'.repeat(200) });
    expect(
      arena
        .get(
          doc('big'),
          'k',
          null,
          () => true,
          () => big,
        )
        .toString(),
    ).toBe(big);
    expect(arena.size).toBe(0);
  });

  it('a view can be overwritten by the next get; jsonEnvelope copies each item first', () => {
    const arena = new JsonArena<{ name: string }, null>(1024, 400);
    const docs = ['a', 'b', 'c', 'd'].map(doc);
    const texts = new Map(docs.map((d) => [d, item(d.name, 300)]));
    const get = (target: { name: string }) =>
      arena.get(
        target,
        'k',
        null,
        () => true,
        () => texts.get(target)!,
      );
    get(docs[0]!);
    get(docs[1]!);
    get(docs[2]!);
    // a is now the oldest: a hit on it, then d's encoding wraps over exactly its bytes.
    const viewOfA = get(docs[0]!);
    get(docs[3]!);
    expect(viewOfA.toString()).not.toBe(texts.get(docs[0]!));

    get(docs[1]!);
    const sequence = [docs[1]!, docs[2]!, docs[3]!, docs[0]!, docs[1]!];
    const body = jsonEnvelope(
      'items',
      (function* () {
        for (const target of sequence) yield get(target);
      })(),
      { total: sequence.length },
    );
    expect(JSON.parse(body.toString())).toEqual({ items: sequence.map((target) => JSON.parse(texts.get(target)!) as unknown), total: 5 });
  });
});

describe('jsonEnvelope bodies', () => {
  it('keeps every body intact while later ones are cut from the same and from new slabs', () => {
    // Bodies of 5–60 KB: a 1 MiB slab holds a few dozen, so 300 of them fill several slabs.
    const bodies = Array.from({ length: 300 }, (_, i) => {
      const parts = Array.from({ length: 1 + (i % 12) }, (_, k) => Buffer.from(JSON.stringify({ i, k, pad: 'x'.repeat(4_000) })));
      const withMember = withJsonMember(Buffer.from(JSON.stringify({ i })), 'distance', i / 7);
      return { i, body: jsonEnvelope('items', [...parts, withMember], { total: i }) };
    });
    for (const { i, body } of bodies) {
      const parsed = JSON.parse(body.toString()) as { items: Array<{ i: number; k?: number; distance?: number }>; total: number };
      expect(parsed.total).toBe(i);
      expect(parsed.items).toHaveLength(2 + (i % 12));
      expect(parsed.items.at(-1)).toEqual({ i, distance: i / 7 });
      expect(parsed.items.slice(0, -1).every((entry, k) => entry.i === i && entry.k === k)).toBe(true);
    }
  });
});
