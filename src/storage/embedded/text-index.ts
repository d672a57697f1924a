/**
 * An inverted index (term → document ids) over the text fields of one text index definition,
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
  private readonly termsById = new Map<number, Set<string>>();

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

  add(id: number, doc: Record<string, unknown>): void {
    const terms = this.termsOf(doc);
    this.termsById.set(id, terms);
    for (const term of terms) {
      let ids = this.postings.get(term);
      if (ids === undefined) {
        ids = new Set();
        this.postings.set(term, ids);
      }
      ids.add(id);
    }
  }

  remove(id: number): void {
    const terms = this.termsById.get(id);
    if (terms === undefined) return;
    this.termsById.delete(id);
    for (const term of terms) {
      const ids = this.postings.get(term);
      if (ids === undefined) continue;
      ids.delete(id);
      if (ids.size === 0) this.postings.delete(term);
    }
  }

  /** MongoDB's `$text` without phrases or negations: documents holding ANY of the terms. */
  matchAny(terms: Iterable<string>): Set<number> {
    const result = new Set<number>();
    for (const term of terms) {
      const ids = this.postings.get(term);
      if (ids !== undefined) for (const id of ids) result.add(id);
    }
    return result;
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
