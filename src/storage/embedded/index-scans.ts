/**
 * Range scans over a SortedIndex's blocks: the binary search for a probe (a prefix of key
 * components), and passes over the slots of a position range — collected, marked in a bitset,
 * counted against one — or of every run of one leading value.
 */
import { type Bitset } from './bitset.js';
import { compareValues, typeRank } from './bson.js';
import { type Block } from './index-blocks.js';

/** A probe value standing for the lowest or highest value of one BSON type bracket. */
export class BracketEdge {
  constructor(
    readonly rank: number,
    readonly end: 'min' | 'max',
  ) {}
}

export type ProbeValue = unknown;

function compareToProbe(value: unknown, probe: ProbeValue): number {
  if (probe instanceof BracketEdge) {
    const rank = typeRank(value);
    if (rank !== probe.rank) return rank < probe.rank ? -1 : 1;
    return probe.end === 'min' ? 1 : -1;
  }
  return compareValues(value, probe);
}

/** Compares an entry's first `probe.length` components with the probe values. */
function compareToProbes(block: Block, i: number, probe: readonly ProbeValue[]): number {
  for (let c = 0; c < probe.length; c++) {
    const order = compareToProbe(block.keys[c]![i], probe[c]);
    if (order !== 0) return order;
  }
  return 0;
}

/** Whether the entry sorts after the probe (`after`) or not before it. A function, not a closure per seek. */
function goesLeft(block: Block, i: number, probe: readonly ProbeValue[], after: boolean): boolean {
  let order: number;
  const first = probe[0];
  const key = block.keys[0]![i];
  // One numeric component against a numeric key (ids: venue, organizer, category, tag) compares
  // as plain numbers (BSON order within the number bracket; NaN and other types take the full path).
  if (probe.length === 1 && typeof first === 'number' && typeof key === 'number' && first === first && key === key) order = key - first;
  else order = compareToProbes(block, i, probe);
  return after ? order > 0 : order >= 0;
}

/**
 * The first block holding an entry whose leading components sort after the probe (`after`) or not
 * before it (`!after`); blocks.length when none. Probe values may be BracketEdges.
 */
export function blockAtProbe(blocks: readonly Block[], probe: readonly ProbeValue[], after: boolean): number {
  let lo = 0;
  let hi = blocks.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const block = blocks[mid]!;
    if (goesLeft(block, block.ids.length - 1, probe, after)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The offset in `block` of its first entry that sorts after the probe (`after`) or not before it. */
export function offsetAtProbe(block: Block, probe: readonly ProbeValue[], after: boolean): number {
  let left = 0;
  let right = block.ids.length;
  while (left < right) {
    const mid = (left + right) >>> 1;
    if (goesLeft(block, mid, probe, after)) right = mid;
    else left = mid + 1;
  }
  return left;
}

/** Appends the slots of `remaining` entries from block `b`, offset `i`, to `out`. */
export function collectSlots(blocks: readonly Block[], b: number, i: number, remaining: number, out: number[]): void {
  while (remaining > 0 && b < blocks.length) {
    const slots = blocks[b]!.slots;
    const end = Math.min(slots.length, i + remaining);
    for (let k = i; k < end; k++) out.push(slots[k]!);
    remaining -= end - i;
    b += 1;
    i = 0;
  }
}

/** Sets (or clears) the bits of the slots of `remaining` entries from block `b`, offset `i`; returns how many bits changed. */
export function markSlots(blocks: readonly Block[], b: number, i: number, remaining: number, bits: Bitset, value: boolean): number {
  let changed = 0;
  while (remaining > 0 && b < blocks.length) {
    const slots = blocks[b]!.slots;
    const end = Math.min(slots.length, i + remaining);
    for (let k = i; k < end; k++) {
      const slot = slots[k]!;
      if (bits.has(slot) === value) continue;
      bits.assign(slot, value);
      changed += 1;
    }
    remaining -= end - i;
    b += 1;
    i = 0;
  }
  return changed;
}

/** How many slots of `remaining` entries from block `b`, offset `i`, are set in `bits` (at most 1 with `firstOnly`). */
export function countMarkedSlots(blocks: readonly Block[], b: number, i: number, remaining: number, bits: Bitset, firstOnly: boolean): number {
  let count = 0;
  while (remaining > 0 && b < blocks.length) {
    const slots = blocks[b]!.slots;
    const end = Math.min(slots.length, i + remaining);
    for (let k = i; k < end; k++) {
      if (bits.has(slots[k]!)) {
        count += 1;
        if (firstOnly) return count;
      }
    }
    remaining -= end - i;
    b += 1;
    i = 0;
  }
  return count;
}

/**
 * Every run of entries with one leading value (BSON equality), in index order: the value and how
 * many of the run's slots are set in `bits` (0 included). One pass over the whole index.
 */
export function countMarkedRuns(blocks: readonly Block[], bits: Bitset, visit: (value: unknown, count: number) => void): void {
  let current: unknown;
  let count = 0;
  let started = false;
  for (const block of blocks) {
    const keys = block.keys[0]!;
    const slots = block.slots;
    for (let i = 0; i < slots.length; i++) {
      const value = keys[i];
      if (!started || (value !== current && compareValues(value, current) !== 0)) {
        if (started) visit(current, count);
        current = value;
        count = 0;
        started = true;
      }
      if (bits.has(slots[i]!)) count += 1;
    }
  }
  if (started) visit(current, count);
}
