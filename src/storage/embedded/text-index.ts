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
  private readonly postings = new Map<string, Set<number>>();

  constructor(definition: IndexDefinition) {
    const entries = Object.entries(definition.key);
    const textFields = entries.filter(([, type]) => type === 'text').map(([field]) => field);
    // A compound text index needs equality on its other keys in every $text query; nothing needs
    // that today, so refuse it instead of serving $text with different rules than MongoDB.
    if (textFields.length !== entries.length) {
      throw new UnsupportedQueryError(
        `Text index ${definition.name} mixes text and non-text keys, which the embedded engine does not support.`,
      );
    }
    if (textFields.includes('$**')) {
      throw new UnsupportedQueryError(`Wildcard text index ${definition.name} is not supported by the embedded engine.`);
    }
    if (definition.default_language !== undefined && definition.default_language !== 'english') {
      throw new UnsupportedQueryError(`Text index ${definition.name}: only the english language is supported.`);
    }
    this.name = definition.name;
    this.fields = textFields;
  }

  /** The terms MongoDB would index for a document: every string reached by each field path. */
  termsOf(doc: Record<string, unknown>): Set<string> {
    const terms = new Set<string>();
    for (const field of this.fields) {
      for (const text of stringsAt(doc, field.split('.'), 0)) {
        for (const term of tokenize(text)) terms.add(term);
      }
    }
    return terms;
  }

  add(slot: number, doc: Record<string, unknown>): void {
    const terms = this.termsOf(doc);
    for (const term of terms) {
      let slots = this.postings.get(term);
      if (slots === undefined) {
        slots = new Set();
        this.postings.set(term, slots);
      }
      slots.add(slot);
    }
  }

  /** Removes the entries `doc` (as stored in `slot`) contributed; re-tokenizing is cheaper than remembering every document's terms. */
  remove(slot: number, doc: Record<string, unknown>): void {
    for (const term of this.termsOf(doc)) {
      const slots = this.postings.get(term);
      if (slots === undefined) continue;
      slots.delete(slot);
      if (slots.size === 0) this.postings.delete(term);
    }
  }

  /** Upper bound of the documents holding any of the terms. */
  estimateAny(terms: readonly string[]): number {
    let total = 0;
    for (const term of new Set(terms)) total += this.postings.get(term)?.size ?? 0;
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
    for (const term of terms) if (this.postings.get(term)?.has(slot) === true) return true;
    return false;
  }
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
