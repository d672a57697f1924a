/**
 * Structures a collection derives from the queries it answers rather than from its index
 * definitions: cached clause bitsets, Date columns of fields compared with Dates, and value
 * postings of unindexed fields looked up by equality. Each is built on first use and then kept
 * exact write by write (see refresh).
 */
import { type Bitset } from './bitset.js';
import { ClauseCache } from './clause-cache.js';
import { DateColumn } from './date-column.js';
import { type DocumentTable } from './document-table.js';
import { type StoredDoc } from './predicate.js';
import { ValuePostings } from './value-postings.js';

export class DerivedStructures {
  readonly cache: ClauseCache;
  private readonly dateColumns = new Map<string, DateColumn>();
  private readonly valuePostings = new Map<string, ValuePostings>();

  /** `release` is handed the bitsets the clause cache drops (see ScratchBits.release). */
  constructor(
    private readonly table: DocumentTable,
    release: (bits: Bitset) => void,
  ) {
    this.cache = new ClauseCache(release);
  }

  /** The Date column of a top-level field, built by one pass on first use. */
  dateColumn(field: string): DateColumn {
    let column = this.dateColumns.get(field);
    if (column === undefined) {
      column = new DateColumn(field);
      for (const { slot, doc } of this.table.stored()) column.set(slot, doc);
      this.dateColumns.set(field, column);
    }
    return column;
  }

  /** Postings of an unindexed top-level field, if built. */
  postings(field: string): ValuePostings | undefined {
    return this.valuePostings.get(field);
  }

  /** Builds (one pass) and keeps the postings of an unindexed top-level field. */
  buildPostings(field: string): ValuePostings {
    let postings = this.valuePostings.get(field);
    if (postings === undefined) {
      postings = new ValuePostings(field);
      const end = this.table.nextSlot;
      for (const { slot, doc } of this.table.stored()) postings.add(slot, doc, end);
      this.valuePostings.set(field, postings);
    }
    return postings;
  }

  /**
   * Keeps the structures current after a write: postings and Date columns, then cached clauses
   * (which may read them). `previous` is the document the slot held before.
   */
  refresh(slot: number, doc: StoredDoc | undefined, previous: StoredDoc | undefined): void {
    const end = this.table.nextSlot;
    for (const postings of this.valuePostings.values()) {
      postings.remove(slot, previous);
      postings.add(slot, doc, end);
    }
    for (const column of this.dateColumns.values()) column.set(slot, doc);
    this.cache.refresh(slot, doc);
  }
}
