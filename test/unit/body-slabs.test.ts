/**
 * Response bodies cut from reusable slabs (src/serialize/list.ts): a slab comes back into use only
 * once every body cut from it was reported sent, never while one is still out or was lost (an
 * aborted write), and reuse is what keeps the allocations flat under a steady load.
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { BodySlabs } from '../../src/serialize/list.js';

const SLAB = 1024;

/** A body of `length` bytes filled with `mark`, as jsonEnvelope fills what it takes. */
function body(slabs: BodySlabs, length: number, mark: number): Buffer {
  const out = slabs.take(length);
  out.fill(mark);
  return out;
}

describe('BodySlabs', () => {
  it('reuses a full slab once all its bodies are sent, and leaves bodies still out untouched', () => {
    const slabs = new BodySlabs(SLAB, 2);
    // Eight 120-byte bodies fill the first slab (128 bytes each with alignment); the ninth opens a second.
    const first = Array.from({ length: 8 }, (_, i) => body(slabs, 120, i + 1));
    const ninth = body(slabs, 120, 9);
    expect(slabs.allocated).toBe(2);
    // All but one of the first slab's bodies are sent: it must not be reused yet.
    for (const sent of first.slice(0, 7)) slabs.sent(sent, true);
    const more = Array.from({ length: 8 }, (_, i) => body(slabs, 120, 20 + i));
    expect(slabs.allocated).toBe(3);
    expect(first[7]!.every((byte) => byte === 8)).toBe(true);
    // The last one sent: the first slab is free, and the next slab to open is that one.
    slabs.sent(first[7]!, true);
    const newer = Array.from({ length: 8 }, () => body(slabs, 120, 40));
    expect(slabs.allocated).toBe(3);
    expect(newer.some((out) => out.buffer === first[0]!.buffer)).toBe(true);
    expect(ninth.every((byte) => byte === 9)).toBe(true);
    for (const [i, out] of more.slice(0, 7).entries()) expect(out.every((byte) => byte === 20 + i)).toBe(true);
  });

  it('never reuses a slab one of whose bodies was lost (its write may still be pending)', () => {
    const slabs = new BodySlabs(SLAB, 2);
    const first = Array.from({ length: 8 }, (_, i) => body(slabs, 120, i + 1));
    body(slabs, 120, 9);
    slabs.sent(first[0]!, false);
    for (const sent of first.slice(1)) slabs.sent(sent, true);
    for (let i = 0; i < 8; i++) body(slabs, 120, 50);
    expect(slabs.allocated).toBe(3);
    expect(first[0]!.every((byte) => byte === 1)).toBe(true);
  });

  it('keeps a steady load on a bounded number of slabs; large bodies get Buffers of their own', () => {
    const slabs = new BodySlabs(SLAB, 2);
    const inFlight: Buffer[] = [];
    for (let i = 0; i < 1000; i++) {
      inFlight.push(body(slabs, 40 + (i % 60), i % 256));
      // Four responses in flight at a time.
      if (inFlight.length > 4) slabs.sent(inFlight.shift()!, true);
    }
    expect(slabs.allocated).toBeLessThanOrEqual(3);
    const large = slabs.take(SLAB);
    expect(large.length).toBe(SLAB);
    // Reporting a Buffer that did not come from a slab changes nothing.
    slabs.sent(large, true);
    slabs.sent(Buffer.alloc(10), false);
    expect(slabs.allocated).toBeLessThanOrEqual(3);
  });

  it('releases a body when its response closes after finishing, and loses it when it closes first', () => {
    const slabs = new BodySlabs(SLAB, 2);
    // Responses as Node's emit them: 'finish' (all handed to the OS), then 'close'; an aborted one only 'close'.
    const responses = Array.from({ length: 8 }, () => new EventEmitter());
    const bodies = responses.map((response, i) => {
      const out = body(slabs, 120, i + 1);
      slabs.releaseWhenSent(response, out);
      return out;
    });
    body(slabs, 120, 9);
    for (const response of responses.slice(0, 7)) {
      response.emit('finish');
      response.emit('close');
    }
    // One still being written: nothing reused.
    for (let i = 0; i < 7; i++) body(slabs, 120, 60);
    expect(slabs.allocated).toBe(2);
    body(slabs, 120, 61);
    expect(slabs.allocated).toBe(3);
    expect(bodies[7]!.every((byte) => byte === 8)).toBe(true);
    // It closes without finishing (the client went away): its slab stays out of use for good.
    responses[7]!.emit('close');
    for (let i = 0; i < 16; i++) body(slabs, 120, 62);
    expect(slabs.allocated).toBe(5);
    expect(bodies[7]!.every((byte) => byte === 8)).toBe(true);
  });
});
