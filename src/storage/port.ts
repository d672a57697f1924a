/**
 * The storage port: everything above src/storage speaks these types only.
 * No driver type (ObjectId, Filter, FindCursor, MongoError) may appear here.
 *
 * Both engines (mongodb, embedded) implement `Storage` and execute the same `CompiledQuery`.
 */
import { type DuplicateKeyError } from '../errors.js';

// ---------------------------------------------------------------------------
// Stored documents
// ---------------------------------------------------------------------------

export const POST_STATUSES = ['publish', 'future', 'draft', 'pending', 'private', 'trash'] as const;
export type PostStatus = (typeof POST_STATUSES)[number];

export interface GeoPoint {
  type: 'Point';
  /** GeoJSON order: [longitude, latitude]. */
  coordinates: [number, number];
}

export interface StoredImage {
  url: string;
  extension: string;
}

/** Fields shared by events, venues and organizers (WordPress "posts"). Ids come from the `posts` sequence. */
export interface PostDoc {
  _id: number;
  slug: string;
  status: PostStatus;
  /** Author user id; 0 when none. */
  authorId: number;
  /** Publication date (instant). */
  dateUtc: Date;
  /** Last modification (instant). */
  modifiedUtc: Date;
  description: string;
  excerpt: string;
  image: StoredImage | null;
  /**
   * Stemmed, stop-word-free search terms of the searchable fields (src/lib/text.ts).
   * `$text` finds candidates through the text index (any word); `searchTerms: { $all }` then
   * requires every word, identically on both engines.
   */
  searchTerms: string[];
}

export interface EventDoc extends PostDoc {
  title: string;
  startUtc: Date;
  endUtc: Date;
  /** IANA id, `UTC`, or `UTC±N`. */
  timezone: string;
  allDay: boolean;
  /** Cost components as sent, e.g. ["20$"] or ["0", "20", "30"]; [] when none. */
  cost: string[];
  currencySymbol: string;
  currencyPosition: '' | 'prefix' | 'postfix';
  /** null: never set (the representation then shows the permalink, like the reference). */
  website: string | null;
  showMap: boolean;
  showMapLink: boolean;
  hideFromListings: boolean;
  sticky: boolean;
  featured: boolean;
  ticketed: boolean;
  postParent: number | null;
  venueId: number | null;
  organizerIds: number[];
  categoryIds: number[];
  tagIds: number[];
  /** Event password; null when not protected. Never serialised. */
  password: string | null;
  /** An occurrence's series (src/services/recurrence/), also its `postParent`; absent on single events. */
  seriesId?: number;
  /** An occurrence's original local date in its zone (`YYYY-MM-DD`): its RFC 5545 RECURRENCE-ID. */
  occurrenceDate?: string;
  /** An occurrence changed on its own (scope `this`): a change to the whole series passes it by. */
  isException?: boolean;
}

/** A series' rule (RFC 5545), normalised by src/lib/recurrence/. */
export interface StoredRecurrence {
  /** RRULE value without DTSTART, e.g. `FREQ=WEEKLY;BYDAY=TU;COUNT=10`. */
  rrule: string;
  /** Local dates (`YYYY-MM-DD`) taken out of the set (EXDATE), sorted and unique. */
  exdates: string[];
  /** Local dates added to the set (RDATE) at the series' start time, sorted and unique. */
  rdates: string[];
}

/**
 * A recurring event's series: the template every occurrence copies (every event field; the dates
 * are the first occurrence's, DTSTART) and its rule. Stored apart from events so no list sees it;
 * ids come from the `posts` sequence like events'.
 */
export interface SeriesDoc extends Omit<EventDoc, 'seriesId' | 'occurrenceDate' | 'isException'> {
  recurrence: StoredRecurrence;
  /** The rule's first date without an occurrence yet (`YYYY-MM-DD`; null: none): written as time passes. */
  nextDate: string | null;
}

export interface VenueDoc extends PostDoc {
  name: string;
  /** Lower-cased name, for de-duplication on create. */
  nameKey: string;
  address: string;
  city: string;
  country: string;
  province: string;
  state: string;
  zip: string;
  phone: string;
  stateprovince: string;
  website: string;
  showMap: boolean;
  showMapLink: boolean;
  location: GeoPoint | null;
  geoSource: 'provided' | 'gazetteer' | null;
  /** Created by the write of an event that is not public, and not released yet (src/services/holds.ts). */
  held?: boolean;
}

export interface OrganizerDoc extends PostDoc {
  name: string;
  nameKey: string;
  phone: string;
  website: string;
  email: string;
  /** Created by the write of an event that is not public, and not released yet (src/services/holds.ts). */
  held?: boolean;
}

/** Categories and tags (WordPress "terms"). Ids come from the `terms` sequence. */
export interface TermDoc {
  _id: number;
  name: string;
  /** Lower-cased name; unique per parent (categories) or per taxonomy (tags). */
  nameKey: string;
  slug: string;
  description: string;
  /** Parent category id; 0 for roots and for every tag. */
  parent: number;
  /** Created by the write of an event that is not public, and not released yet (src/services/holds.ts). */
  held?: boolean;
}

export type CategoryDoc = TermDoc;
export type TagDoc = TermDoc;

/**
 * A create sent with an `Idempotency-Key` header (src/services/idempotency.ts). The key itself is
 * never stored: `_id` is the first 52 bits of `keyHash` (a safe integer, as the port wants), and
 * `keyHash` is kept whole so that two keys sharing those bits are told apart.
 */
export interface IdempotencyDoc {
  _id: number;
  /** SHA-256 (hex) of the caller's credential scope and the key. */
  keyHash: string;
  /** SHA-256 (hex) of the method, the route and the canonical JSON of the body. */
  requestHash: string;
  /** `done` once a success was stored; `pending` while (or after) an attempt runs without one. */
  state: 'pending' | 'done';
  /** The id the create stores its resource under, reserved before the first attempt. */
  reservedId: number;
  /** Bumped by every claim of the record: writes conditioned on it act only for the claim they hold. */
  attempts: number;
  /** An attempt runs until this instant; past it the record may be claimed again. */
  lockedUntil: Date;
  /** Whether an attempt ended without a known outcome (a 5xx): its write may exist under `reservedId`. */
  uncertain: boolean;
  /** The stored success (`done`): status and the response body as sent. */
  status: number | null;
  body: string | null;
  /** Start of the record's 24-hour window (a TTL index on MongoDB). */
  createdAt: Date;
}

/** The kinds of record a tombstone names. */
export const TOMBSTONE_TYPES = ['event', 'venue', 'organizer', 'category', 'tag'] as const;
export type TombstoneType = (typeof TOMBSTONE_TYPES)[number];

/**
 * A record that left the lists (src/services/tombstones.ts): trashed, deleted, or no longer shown
 * to some callers. One per record: `_id` is derived from the record's type and id, so writing the
 * tombstone of a record again replaces it instead of adding a second one.
 */
export interface TombstoneDoc {
  _id: number;
  type: TombstoneType;
  /** The record's id. */
  recordId: number;
  /** `all`: no caller lists the record any more; `public`: anonymous callers no longer do. */
  audience: 'all' | 'public';
  /** When the record left (the lists of `audience`). */
  deletedAt: Date;
}

export interface DocumentTypes {
  events: EventDoc;
  venues: VenueDoc;
  organizers: OrganizerDoc;
  categories: CategoryDoc;
  tags: TagDoc;
  idempotency: IdempotencyDoc;
  tombstones: TombstoneDoc;
  series: SeriesDoc;
}

export type CollectionName = keyof DocumentTypes;
export const COLLECTION_NAMES = [
  'events',
  'venues',
  'organizers',
  'categories',
  'tags',
  'idempotency',
  'tombstones',
  'series',
] as const satisfies readonly CollectionName[];

/** Two id sequences, like WordPress: posts (events, venues, organizers) and terms (categories, tags). */
export type SequenceName = 'posts' | 'terms';

/** Every engine's `nextId` refuses a count that is not a positive safe integer (a caller's bug, not bad input). */
export function assertIdCount(count: number): void {
  if (!Number.isSafeInteger(count) || count < 1) throw new RangeError(`nextId needs a positive whole count of ids, got ${String(count)}`);
}

// ---------------------------------------------------------------------------
// Queries: a closed subset of MongoDB's query language, implemented by both engines
// ---------------------------------------------------------------------------

export type Scalar = string | number | boolean | Date | null;

export interface CenterSphere {
  /** [[lng, lat], radiusInRadians] — MongoDB's `$centerSphere`. */
  $centerSphere: [[number, number], number];
}

export interface FieldOperators {
  $eq?: Scalar;
  $ne?: Scalar;
  $in?: Scalar[];
  $nin?: Scalar[];
  $gt?: Scalar;
  $gte?: Scalar;
  $lt?: Scalar;
  $lte?: Scalar;
  $exists?: boolean;
  $all?: Scalar[];
  $geoWithin?: CenterSphere;
}

export type FieldCondition = Scalar | FieldOperators;

export interface TextSearch {
  $search: string;
  $language?: 'english';
  $caseSensitive?: false;
  $diacriticSensitive?: false;
}

/**
 * A filter. Field keys map to a condition; `$and`/`$or`/`$nor` combine filters; `$text` is allowed
 * once, at the top level or directly inside a top-level `$and` (as in MongoDB).
 */
export interface Filter {
  $and?: Filter[];
  $or?: Filter[];
  $nor?: Filter[];
  $text?: TextSearch;
  [field: string]: FieldCondition | Filter[] | TextSearch | undefined;
}

export type SortDirection = 1 | -1;
/** Ordered sort keys; always end with a unique key (`_id`) so paging is stable. */
export type Sort = Array<[field: string, direction: SortDirection]>;

export interface CompiledQuery {
  filter: Filter;
  sort?: Sort;
  skip?: number;
  limit?: number;
}

export interface Page<T> {
  items: T[];
  /** Number of documents matching the filter, ignoring skip/limit. */
  total: number;
}

/** Partial update of one document: `$set` replaces fields, `$unset` removes them. */
export interface Update<T> {
  $set?: Partial<T>;
  $unset?: Array<keyof T & string>;
}

/** Update applied to many documents (e.g. unlinking a trashed venue from every event). */
export interface ManyUpdate {
  $set?: Record<string, Scalar | Scalar[]>;
  /** Remove a value from an array field. */
  $pull?: Record<string, Scalar>;
}

// ---------------------------------------------------------------------------
// Index definitions (indexes/*.ts): the single source of index truth
// ---------------------------------------------------------------------------

export type IndexKeyType = 1 | -1 | 'text' | '2dsphere';

/** Structurally a subset of the driver's `IndexDescription`, so the mongodb engine passes it through. */
export interface IndexDefinition {
  name: string;
  key: Record<string, IndexKeyType>;
  unique?: boolean;
  weights?: Record<string, number>;
  default_language?: 'english';
  /** 2dsphere index version (3 is current). */
  '2dsphereIndexVersion'?: 3;
  /**
   * A TTL index (one Date field): MongoDB deletes a document this many seconds after that date.
   * The embedded engine has no TTL monitor and builds the index as a plain one; what a TTL
   * index expires must be treated as absent by its readers anyway (MongoDB deletes late).
   */
  expireAfterSeconds?: number;
}

export type IndexSet = { [K in CollectionName]: IndexDefinition[] };

// ---------------------------------------------------------------------------
// Collections and storage
// ---------------------------------------------------------------------------

/** A document `insertMany` did not store: its position in the list and the unique index it violated. */
export interface InsertManyFailure {
  index: number;
  error: DuplicateKeyError;
}

/**
 * Documents a collection returns are read-only values: the embedded engine hands out its stored
 * (deeply frozen) documents without copying them, so callers build new objects instead of editing
 * the ones they read. A changed document is a new object, so derived values may be memoised per
 * document object (see `src/serialize/memo.ts`).
 */
export interface Collection<T extends { _id: number }> {
  /** Insert a new document. Throws DuplicateKeyError when a unique index is violated. */
  insertOne(doc: T): Promise<void>;
  /**
   * Inserts documents each on its own, like MongoDB's unordered insertMany (bulk loads): a document
   * whose unique key is taken — by a stored document or an earlier one of the list — fails alone,
   * reported with its position; the others are stored. Any other failure rejects the call; the
   * embedded engine then has stored none of them, MongoDB may have stored some.
   */
  insertMany(docs: readonly T[]): Promise<InsertManyFailure[]>;
  findById(id: number): Promise<T | null>;
  findOne(filter: Filter): Promise<T | null>;
  find(query: CompiledQuery): Promise<T[]>;
  /** `find` plus the total number of matches (ignoring skip/limit). */
  findPage(query: CompiledQuery): Promise<Page<T>>;
  count(filter: Filter): Promise<number>;
  /**
   * Distinct values of a field over the documents matching the filter; array fields contribute their
   * elements (MongoDB semantics). Nulls and missing values are left out. Throws ResultTooLargeError
   * when the engine cannot return every value in one answer (MongoDB: past 16 MB).
   */
  distinct(field: string, filter: Filter): Promise<Scalar[]>;
  /**
   * For each distinct value of `field` over the documents matching `filter`, how many documents
   * hold it. Array fields count each document once per distinct element (MongoDB $unwind + $group
   * semantics, after de-duplicating the elements within a document). Nulls, missing values and
   * empty arrays are left out. Order is not part of the contract.
   */
  countValues(field: string, filter: Filter): Promise<Array<{ value: Scalar; count: number }>>;
  /**
   * Update one document by id and return it as stored afterwards, or null if absent.
   * Throws DuplicateKeyError when a unique index would be violated (nothing is written then).
   */
  updateById(id: number, update: Update<T>): Promise<T | null>;
  /** Returns the number of documents modified. */
  updateMany(filter: Filter, update: ManyUpdate): Promise<number>;
  /**
   * Documents whose point in `field` (a 2dsphere-indexed GeoJSON Point) lies within
   * `query.maxDistance` of `query.point`, nearest first (ties by `_id`), with their distances.
   */
  near(field: string, query: NearQuery): Promise<NearHit[]>;
  /** Permanently delete; returns whether a document was removed. */
  deleteById(id: number): Promise<boolean>;
  /** How the engine would run `find(query)` (reads nothing but its plan; for tests and operators). */
  explain(query: CompiledQuery): Promise<QueryPlan>;
}

/** An engine's plan for a query, in terms both engines share. */
export interface QueryPlan {
  /** Indexes read to find the matches, by their names in indexes/ (`_id_`: the primary key). */
  indexes: string[];
  /** Whether documents are found by examining every document of the collection (a collection scan). */
  collectionScan: boolean;
  /** How the order is produced: walking an index, sorting the matches in memory, or none asked. */
  sort: 'index' | 'memory' | 'none';
}

/** A nearest-first search around a point on a 2dsphere-indexed field. */
export interface NearQuery {
  /** [longitude, latitude]. */
  point: [number, number];
  /** Largest distance, in radians of arc. */
  maxDistance: number;
  /** Further conditions on the documents (no `$text`: MongoDB's $geoNear refuses it). */
  filter: Filter;
}

export interface NearHit {
  _id: number;
  /** Great-circle distance from the point, in radians of arc. */
  distance: number;
}

export type EngineName = 'mongodb' | 'embedded';

/** A bulk load's writes (Storage.bulkLoad). */
export interface BulkLoad {
  /** The same data; a write through it may resolve once applied, before it is durable. */
  readonly storage: Storage;
  /**
   * Resolves once every write made through `storage` so far is durable; rejects (with
   * StorageUnavailableError) when one cannot be made so.
   */
  settle(): Promise<void>;
}

export interface Storage {
  readonly engine: EngineName;
  /** Why this engine was chosen (shown at start-up and by the readiness route). */
  readonly reason: string;
  readonly events: Collection<EventDoc>;
  readonly venues: Collection<VenueDoc>;
  readonly organizers: Collection<OrganizerDoc>;
  readonly categories: Collection<CategoryDoc>;
  readonly tags: Collection<TagDoc>;
  readonly idempotency: Collection<IdempotencyDoc>;
  readonly tombstones: Collection<TombstoneDoc>;
  readonly series: Collection<SeriesDoc>;
  /**
   * True when every read of the collections (a method that changes nothing) does all its work
   * before it returns: no I/O, no timer, its promise settled within the same turn of the event
   * loop — as the embedded engines' reads, answered from memory, are. No timer can fire during such
   * a call, so the storage deadline (src/storage/deadline.ts) would never trigger and is left out.
   * A wrapper that may delay a call (interceptStorage) does not carry it.
   */
  readonly readsSettleAtOnce?: boolean;
  /**
   * Reserves `count` (default 1) consecutive ids of a sequence and returns the first (atomic; never
   * reused). A bulk write reserves its ids in one call: one round trip instead of one per record.
   * A count that is not a positive safe integer throws.
   */
  nextId(sequence: SequenceName, count?: number): Promise<number>;
  /**
   * A number that grows with every write through this storage, counted once the write has settled
   * and before its caller learns the outcome; on an engine several processes share, the writes of
   * the others show within a second (src/storage/change-version.ts). What was computed from the data
   * at one version is current while the version stands.
   */
  changeVersion(): number;
  /** Create the indexes of `indexes/` (idempotent). Must complete before the server listens. */
  ensureIndexes(): Promise<void>;
  /** Resolves when storage answers; rejects with StorageUnavailableError otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * For a load acknowledged once, at its end (the seed command's summary): writes through the
   * returned storage need not each wait until durable, and `settle()` waits for all of them. The
   * durable embedded engine implements it (a write then waits for no commit; LMDB commits in the
   * background, grouping what arrives meanwhile); where absent, writes are used as they are.
   */
  bulkLoad?(): BulkLoad;
}

/** Every method of a collection: what a wrapper of one (deadline, change tracking) must pass on. */
export const COLLECTION_METHODS = [
  'insertOne',
  'insertMany',
  'findById',
  'findOne',
  'find',
  'findPage',
  'count',
  'distinct',
  'countValues',
  'updateById',
  'updateMany',
  'near',
  'deleteById',
  'explain',
] as const satisfies ReadonlyArray<keyof Collection<{ _id: number }>>;
