/**
 * The structure of a SortedIndex: its entries (compound key, _id, slot) in BSON order with ties by
 * `_id`, held in blocks of bounded size, each block column by column (no object per entry). Inserts
 * and deletes cost a binary search plus a short splice; a bulk build is one sort.
 */
import { compareValues, typeRank } from './bson.js';

/** Blocks split when they grow past this; bulk builds fill them half-way so inserts stay cheap. */
const MAX_BLOCK = 512;
const BULK_BLOCK = 256;

export interface Block {
  /** keys[c][i]: component c of entry i. */
  keys: unknown[][];
  ids: number[];
  slots: number[];
}

/** A block with no entries and `width` key columns. */
export function emptyColumns(width: number): Block {
  return { keys: Array.from({ length: width }, () => []), ids: [], slots: [] };
}

/** Sorts entries (held column by column, no object per entry) into fresh blocks, half full so later inserts stay cheap. */
export function sortIntoBlocks(entries: Block, width: number): Block[] {
  // Sort on primitive stand-ins (Dates as their time): comparing Dates in place costs a pointer
  // chase per comparison, which dominates sorting a million entries.
  const count = entries.ids.length;
  const ranks = new Int8Array(count * width);
  const numbers = new Float64Array(count * width);
  for (let c = 0; c < width; c++) {
    const column = entries.keys[c]!;
    for (let e = 0; e < count; e++) {
      const value = column[e];
      ranks[e * width + c] = typeRank(value);
      numbers[e * width + c] = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Number.NaN;
    }
  }
  const ids = entries.ids;
  const order = Array.from({ length: count }, (_, e) => e).sort((a, b) => {
    for (let c = 0; c < width; c++) {
      const ra = ranks[a * width + c]!;
      const rb = ranks[b * width + c]!;
      if (ra !== rb) return ra - rb;
      const na = numbers[a * width + c]!;
      const nb = numbers[b * width + c]!;
      // NaN stands for "not a plain number or time" (and for NaN itself): compare the values.
      const order = na === na && nb === nb ? na - nb : compareValues(entries.keys[c]![a], entries.keys[c]![b]);
      if (order !== 0) return order;
    }
    return ids[a]! - ids[b]!;
  });
  const blocks: Block[] = [];
  for (let start = 0; start < count; start += BULK_BLOCK) {
    const chunk = order.slice(start, start + BULK_BLOCK);
    blocks.push({
      keys: entries.keys.map((column) => chunk.map((e) => column[e])),
      ids: chunk.map((e) => ids[e]!),
      slots: chunk.map((e) => entries.slots[e]!),
    });
  }
  return blocks;
}

function compareEntry(block: Block, i: number, tuple: unknown[], id: number): number {
  for (let c = 0; c < tuple.length; c++) {
    const order = compareValues(block.keys[c]![i], tuple[c]);
    if (order !== 0) return order;
  }
  return block.ids[i]! - id;
}

/** First position in `block` whose entry is >= (tuple, id). */
function lowerInBlock(block: Block, tuple: unknown[], id: number): number {
  let lo = 0;
  let hi = block.ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareEntry(block, mid, tuple, id) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First block whose last entry is >= (tuple, id); blocks.length when none. */
function blockFor(blocks: readonly Block[], tuple: unknown[], id: number): number {
  let lo = 0;
  let hi = blocks.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const block = blocks[mid]!;
    if (compareEntry(block, block.ids.length - 1, tuple, id) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Inserts one entry into its block, splitting a block that grows past MAX_BLOCK. */
export function insertEntry(blocks: Block[], tuple: unknown[], id: number, slot: number): void {
  if (blocks.length === 0) {
    blocks.push({ keys: tuple.map((value) => [value]), ids: [id], slots: [slot] });
    return;
  }
  const b = Math.min(blockFor(blocks, tuple, id), blocks.length - 1);
  const block = blocks[b]!;
  const at = lowerInBlock(block, tuple, id);
  for (let c = 0; c < tuple.length; c++) block.keys[c]!.splice(at, 0, tuple[c]);
  block.ids.splice(at, 0, id);
  block.slots.splice(at, 0, slot);
  if (block.ids.length > MAX_BLOCK) {
    const half = block.ids.length >>> 1;
    const right: Block = {
      keys: block.keys.map((column) => column.splice(half)),
      ids: block.ids.splice(half),
      slots: block.slots.splice(half),
    };
    blocks.splice(b + 1, 0, right);
  }
}

/** Deletes the entry (tuple, id) at `slot`, dropping a block left empty; false when there is none. */
export function deleteEntry(blocks: Block[], tuple: unknown[], id: number, slot: number): boolean {
  const b = blockFor(blocks, tuple, id);
  const block = blocks[b];
  if (block === undefined) return false;
  const at = lowerInBlock(block, tuple, id);
  if (at >= block.ids.length || block.slots[at] !== slot || compareEntry(block, at, tuple, id) !== 0) return false;
  for (const column of block.keys) column.splice(at, 1);
  block.ids.splice(at, 1);
  block.slots.splice(at, 1);
  if (block.ids.length === 0) blocks.splice(b, 1);
  return true;
}

/** The position of each block's first entry. */
export function blockStarts(blocks: readonly Block[]): number[] {
  const starts = new Array<number>(blocks.length);
  let position = 0;
  for (let b = 0; b < blocks.length; b++) {
    starts[b] = position;
    position += blocks[b]!.ids.length;
  }
  return starts;
}

/** Block index and offset of a position (position < size), given the blocks' starts. */
export function locate(starts: readonly number[], position: number): [number, number] {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (starts[mid]! <= position) lo = mid;
    else hi = mid - 1;
  }
  return [lo, position - starts[lo]!];
}
