/**
 * An inverted index (term → document slots) over the text fields of one text index definition,
 * tokenized by src/lib/text.ts exactly like MongoDB's English text index (version 3).
 */
import { UnsupportedQueryError } from '../../errors.js';
import { tokenize } from '../../lib/text.js';
import { type IndexDefinition } from '../port.js';
import { isPlainObject } from './bson.js';

export class TextIndex {
  readonly name: string;
  private readonly fields: string[];
  /** Each field's path, split once (a bulk load indexes a million documents). */
  private readonly paths: ReadonlyArray<readonly string[]>;
  /**
   * Per term, the slots holding it in ascending order: new documents take the highest slot so far,
   * so an insert appends (a set would hash every entry and keep a table several times larger).
   */
  private readonly postings = new Map<string, number[]>();

  constructor(definition: IndexDefinition) {
    const entries = Object.entries(definition.key);
    const textFields = entries.filter(([, type]) => type === 'text').map(([field]) => field);
    // A compound text index needs equality on its other keys in every $text query; nothing needs
    // that today, so refuse it instead of serving $text with different rules than MongoDB.
    if (textFields.length !== entries.length) {
      throw new UnsupportedQueryError(`Text index ${definition.name} mixes text and non-text keys, which the embedded engine does not support.`);
    }
    if (textFields.includes('$**')) {
      throw new UnsupportedQueryError(`Wildcard text index ${definition.name} is not supported by the embedded engine.`);
    }
    if (definition.default_language !== undefined && definition.default_language !== 'english') {
      throw new UnsupportedQueryError(`Text index ${definition.name}: only the english language is supported.`);
    }
    this.name = definition.name;
    this.fields = textFields;
    this.paths = textFields.map((field) => field.split('.'));
  }

  /** The terms MongoDB would index for a document: every string reached by each field path. */
  termsOf(doc: Record<string, unknown>): Set<string> {
    const terms = new Set<string>();
    for (const path of this.paths) {
      // A top-level string (titles, descriptions): no array of strings to gather first.
      const value = path.length === 1 ? doc[path[0]!] : undefined;
      if (typeof value === 'string') {
        for (const term of tokenize(value)) terms.add(term);
        continue;
      }
      for (const text of stringsAt(doc, path, 0)) {
        for (const term of tokenize(text)) terms.add(term);
      }
    }
    return terms;
  }

  add(slot: number, doc: Record<string, unknown>): void {
    for (const term of this.termsOf(doc)) {
      const slots = this.postings.get(term);
      if (slots === undefined) this.postings.set(term, [slot]);
      else if (slots[slots.length - 1]! < slot) slots.push(slot);
      else {
        const at = lowerBound(slots, slot);
        if (slots[at] !== slot) slots.splice(at, 0, slot);
      }
    }
  }

  /** Removes the entries `doc` (as stored in `slot`) contributed; re-tokenizing is cheaper than remembering every document's terms. */
  remove(slot: number, doc: Record<string, unknown>): void {
    for (const term of this.termsOf(doc)) {
      const slots = this.postings.get(term);
      if (slots === undefined) continue;
      const at = lowerBound(slots, slot);
      if (slots[at] !== slot) continue;
      if (slots.length === 1) this.postings.delete(term);
      else slots.splice(at, 1);
    }
  }

  /** Upper bound of the documents holding any of the terms. */
  estimateAny(terms: readonly string[]): number {
    let total = 0;
    for (const term of new Set(terms)) total += this.postings.get(term)?.length ?? 0;
    return total;
  }

  /** MongoDB's `$text` without phrases or negations: appends the documents holding ANY of the terms (a slot may repeat). */
  collectAny(terms: readonly string[], out: number[]): void {
    for (const term of new Set(terms)) {
      const slots = this.postings.get(term);
      if (slots !== undefined) for (const slot of slots) out.push(slot);
    }
  }

  hasAny(slot: number, terms: readonly string[]): boolean {
    for (const term of terms) {
      const slots = this.postings.get(term);
      if (slots !== undefined && slots[lowerBound(slots, slot)] === slot) return true;
    }
    return false;
  }
}

/** The first position in ascending `slots` whose slot is >= `slot`. */
function lowerBound(slots: readonly number[], slot: number): number {
  let lo = 0;
  let hi = slots.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (slots[mid]! < slot) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Text index key extraction (fts_element_iterator.cpp): strings, also inside arrays; other types are skipped. */
function stringsAt(value: unknown, segments: readonly string[], index: number): string[] {
  if (index === segments.length) {
    if (typeof value === 'string') return [value];
    if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
    return [];
  }
  const segment = segments[index]!;
  if (Array.isArray(value)) return value.flatMap((element) => stringsAt(element, segments, index));
  if (isPlainObject(value)) return stringsAt(value[segment], segments, index + 1);
  return [];
}
