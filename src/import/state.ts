/**
 * What one import run keeps between its passes (validation, writes, pruning) and the bookkeeping
 * they share: the records of the small resources, the event slugs of the files, slug → id maps,
 * counts, problems and progress. What grows with a streamed events file is bounded: event slugs are
 * 64-bit fingerprints, slug → id lookups live in least-recently-used caches, and event records are
 * kept between the passes up to `keptEventsLimit` only (validation.ts).
 */
import { type ApiError, isClientError } from '../errors.js';
import { type Caller } from '../services/access.js';
import { type Services } from '../services/index.js';
import { type Filter, type Storage } from '../storage/port.js';
import { type EventDates, type RecordCheckContext } from './checks.js';
import { LOOKUP_CHUNK, SlugFingerprints, SlugIds } from './memory.js';
import { type RecordProblem, type ResourceCounts, SeedError, type SeedPhase, type SeedReporter } from './report.js';
import { type FieldError, fieldErrors, RESOURCES, type Resource, type SeedEvent, type SeedRecordTypes } from './schemas.js';
import { formatPosition, type RecordPosition, type SeedSource } from './sources.js';

/** The caller the import writes as. */
export const CALLER: Caller = { role: 'editor', authorId: 0 };
const MAX_KEPT_PROBLEMS = 1000;

/** The resources whose records are kept in memory whole (all but events). */
export const SMALL = ['categories', 'tags', 'venues', 'organizers'] as const;
export type SmallResource = (typeof SMALL)[number];

/** The field of an event record that names records of a small resource. */
export const fieldOf: Record<SmallResource, string> = { venues: 'venue', organizers: 'organizer', categories: 'categories', tags: 'tags' };

/** A validated record of a small resource, kept in memory between the passes. */
export interface Entry<R extends SmallResource> {
  position: RecordPosition;
  slug: string;
  record: SeedRecordTypes[R];
}

/** An event record as the validation pass read it. */
export interface KeptEvent {
  position: RecordPosition;
  record: SeedEvent;
  /** Its start and end as the validation pass resolved them (counted from the run's clock). */
  dates?: EventDates | undefined;
}

/** What the write pass needs of an event record. */
export interface PreparedEvent {
  position: RecordPosition;
  slug: string;
  record: SeedEvent;
  dates?: EventDates | undefined;
}

export type WriteResult = 'created' | 'updated' | 'unchanged';

export interface RunSettings {
  /** Where the run reads and writes (a bulk-load view of the store when it has one). */
  storage: Storage;
  /** The services built on that storage (createServices). */
  services: Services;
  reporter: SeedReporter;
  dryRun: boolean;
  siteTimezone: string;
  /** The run's clock, whole seconds (stored publication dates are whole seconds too). */
  now: Date;
  /** Writes in flight at once. */
  concurrency: number;
  /** Streamed events handled per batch. */
  batchSize: number;
  /** Event records kept from the validation pass for the write pass at most. */
  keptEventsLimit: number;
  /** RECURRENCE_MAX_OCCURRENCES: the most occurrences a series record's rule may make. */
  recurrenceMaxOccurrences: number;
}

const emptyCounts = (): ResourceCounts => ({ created: 0, updated: 0, unchanged: 0, failed: 0, removed: 0 });

/** What stops a run at a record: its position and what went wrong (not a refusal of the record). */
export const stopAt = (position: RecordPosition, error: unknown): SeedError =>
  new SeedError(`${formatPosition(position)}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });

/** Calls `visit` with each slug an event record names and its resource (an empty venue left out). */
export function eachRef(record: SeedEvent, visit: (resource: SmallResource, slug: string) => void): void {
  if (record.venue) visit('venues', record.venue);
  if (record.organizer) for (const s of record.organizer) visit('organizers', s);
  if (record.categories) for (const s of record.categories) visit('categories', s);
  if (record.tags) for (const s of record.tags) visit('tags', s);
}

export class RunState {
  readonly storage: Storage;
  readonly reporter: SeedReporter;
  readonly dryRun: boolean;
  readonly siteTimezone: string;
  readonly now: Date;
  readonly checkContext: RecordCheckContext;
  readonly concurrency: number;
  readonly batchSize: number;
  readonly keptEventsLimit: number;
  readonly recurrenceMaxOccurrences: number;

  readonly terms: Pick<Services, 'categories' | 'tags'>;
  readonly venues: Services['venues'];
  readonly organizers: Services['organizers'];
  readonly events: Services['events'];

  readonly counts = Object.fromEntries(RESOURCES.map((r) => [r, emptyCounts()])) as Record<Resource, ResourceCounts>;
  readonly problems: RecordProblem[] = [];
  invalidRecords = 0;
  sources: SeedSource[] = [];
  readonly entries: { [R in SmallResource]: Array<Entry<R>> } = { categories: [], tags: [], venues: [], organizers: [] };
  readonly fileSlugs: Record<SmallResource, Map<string, RecordPosition>> = {
    categories: new Map(),
    tags: new Map(),
    venues: new Map(),
    organizers: new Map(),
  };
  readonly eventSlugs = new SlugFingerprints();
  /** Stored records (not in the files) that file records reference: `prune` keeps them. */
  readonly referencedStored: Record<SmallResource, Set<string>> = { categories: new Set(), tags: new Set(), venues: new Set(), organizers: new Set() };
  readonly referencedStoredEvents = new SlugFingerprints();
  /** Events of the files that a later event of the files names as its series parent. */
  readonly parentsInFiles = new SlugFingerprints();
  /** Event records of the files with `recurrence`: series (series.ts), never a `post_parent`. */
  readonly seriesSlugs = new SlugFingerprints();
  readonly ids: Record<Resource, SlugIds>;
  /** Valid event records per file, kept from the validation pass (null: too many, read again). */
  readonly keptEvents = new Map<SeedSource, KeptEvent[] | null>();
  keptCount = 0;
  /** Valid event records (validation counts them). */
  eventRecords = 0;
  /** Records handled in the current phase, and the phase's total when known. */
  done = 0;
  total = 0;
  /** The next placeholder id for a record a dry run would create (never a real id). */
  private placeholder = -1;
  private readonly counted = new WeakSet<RecordPosition>();

  constructor(settings: RunSettings) {
    const { storage, services } = settings;
    this.storage = storage;
    this.reporter = settings.reporter;
    this.dryRun = settings.dryRun;
    this.siteTimezone = settings.siteTimezone;
    this.now = settings.now;
    this.recurrenceMaxOccurrences = settings.recurrenceMaxOccurrences;
    this.checkContext = { siteTimezone: settings.siteTimezone, now: settings.now };
    this.concurrency = settings.concurrency;
    this.batchSize = settings.batchSize;
    this.keptEventsLimit = settings.keptEventsLimit;
    this.terms = { categories: services.categories, tags: services.tags };
    this.venues = services.venues;
    this.organizers = services.organizers;
    this.events = services.events;
    const bySlug = (resource: Resource) => (slugs: string[]) =>
      (storage[resource] as { find(q: { filter: Filter }): Promise<Array<{ _id: number; slug: string }>> }).find({ filter: { slug: { $in: slugs } } });
    this.ids = Object.fromEntries(RESOURCES.map((r) => [r, new SlugIds(bySlug(r), r === 'events' ? 100_000 : 50_000)])) as Record<Resource, SlugIds>;
  }

  sourcesOf(resource: Resource): SeedSource[] {
    return this.sources.filter((s) => s.resource === resource);
  }

  /** A placeholder id for a record a dry run would create (negative: never a real id). */
  nextPlaceholder(): number {
    return this.placeholder--;
  }

  problem(kind: RecordProblem['kind'], resource: Resource, position: RecordPosition, errors: readonly FieldError[], slug?: string): void {
    for (const { field, message } of errors) {
      const problem: RecordProblem = {
        kind,
        resource,
        location: formatPosition(position),
        file: position.source.display,
        index: position.index,
        ...(position.line !== undefined ? { line: position.line } : {}),
        ...(slug !== undefined ? { slug } : {}),
        field,
        message,
      };
      if (this.problems.length < MAX_KEPT_PROBLEMS) this.problems.push(problem);
      this.reporter.problem(problem);
    }
  }

  /** An invalid record: reported; counted once however many of its fields are wrong. */
  invalid(resource: Resource, position: RecordPosition, errors: readonly FieldError[], slug?: string): void {
    if (!this.counted.has(position)) this.invalidRecords++;
    this.counted.add(position);
    this.problem('invalid', resource, position, errors, slug);
  }

  /** A record whose write the services refused: counted and reported; the run goes on. */
  failed(resource: Resource, position: RecordPosition, error: ApiError, slug: string): void {
    this.counts[resource].failed++;
    this.problem('failed', resource, position, fieldErrors(error), slug);
  }

  tick(phase: SeedPhase, total: number | null): void {
    this.done++;
    // Every record would be a lot of calls for a large load; the reporter throttles drawing anyway.
    if ((this.done & 63) === 0 || this.done === total) this.reporter.progress(phase, this.done, total);
  }

  /** Runs one record's write; a refused write (4xx) fails the record, anything else stops the run. */
  async attempt(resource: Resource, position: RecordPosition, slug: string, write: () => Promise<WriteResult>): Promise<void> {
    try {
      this.counts[resource][await write()]++;
    } catch (error) {
      if (!isClientError(error)) throw stopAt(position, error);
      this.failed(resource, position, error, slug);
    } finally {
      this.tick('loading', this.total);
    }
  }

  /** The stored records of some slugs, by slug (a query per LOOKUP_CHUNK slugs). */
  async storedBySlug<R extends Resource | 'series'>(resource: R, slugs: string[]): Promise<Map<string, Awaited<ReturnType<Storage[R]['find']>>[number]>> {
    const found = new Map<string, Awaited<ReturnType<Storage[R]['find']>>[number]>();
    for (let i = 0; i < slugs.length; i += LOOKUP_CHUNK) {
      const docs = await (this.storage[resource] as Storage['events']).find({ filter: { slug: { $in: slugs.slice(i, i + LOOKUP_CHUNK) } } });
      for (const doc of docs) found.set(doc.slug, doc);
    }
    return found;
  }
}
