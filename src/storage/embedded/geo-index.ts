/**
 * 2dsphere support: point extraction with MongoDB's validation, an exact spherical-cap test for
 * `$geoWithin: { $centerSphere }`, and a k-d tree (kdbush) to find candidates fast.
 */
import KDBush from 'kdbush';
import { UnsupportedQueryError } from '../../errors.js';
import { angleBetween, centralAngle, type LngLat, latitudeCosine, RAD } from '../../lib/geo.js';
import { isPlainObject } from './bson.js';

export type { LngLat };

/** Widens a candidate box so float noise never leaves out a point the exact test would keep. */
const BOX_MARGIN_DEGREES = 1e-9;
/** byAngle orders a bucket of up to this many entries by insertion, a larger one by a comparison sort. */
const SMALL_BUCKET = 32;

function isValidLngLat(lng: unknown, lat: unknown): boolean {
  return (
    typeof lng === 'number' && typeof lat === 'number' && Number.isFinite(lng) && Number.isFinite(lat) && lng >= -180 && lng <= 180 && lat >= -90 && lat <= 90
  );
}

type Extraction = { points: LngLat[] } | { error: string };

/**
 * The points of a field value the way a 2dsphere index reads it: a GeoJSON Point, a legacy
 * [lng, lat] pair, or an array of those. null/missing yields nothing (2dsphere v2+ is sparse).
 */
function extractPoints(value: unknown): Extraction {
  if (value === null || value === undefined) return { points: [] };
  if (Array.isArray(value)) {
    if (value.length === 0) return { points: [] };
    if (typeof value[0] === 'number') {
      return value.length === 2 && isValidLngLat(value[0], value[1])
        ? { points: [[value[0], value[1] as number]] }
        : { error: `invalid legacy point ${JSON.stringify(value)}` };
    }
    const points: LngLat[] = [];
    for (const element of value) {
      const extracted = extractPoints(element);
      if ('error' in extracted) return extracted;
      points.push(...extracted.points);
    }
    return { points };
  }
  if (isPlainObject(value) && 'type' in value) {
    if (value.type !== 'Point') {
      return { error: `geometry type ${JSON.stringify(value.type)} is not supported by the embedded engine` };
    }
    const coordinates = value.coordinates;
    if (!Array.isArray(coordinates) || coordinates.length !== 2 || !isValidLngLat(coordinates[0], coordinates[1])) {
      return { error: `invalid GeoJSON point coordinates ${JSON.stringify(coordinates)}` };
    }
    return { points: [[coordinates[0] as number, coordinates[1] as number]] };
  }
  return { error: `${JSON.stringify(value)} is not a point` };
}

/** Points for matching: a value MongoDB could not read as geometry simply does not match. */
export function pointsForMatching(value: unknown): LngLat[] {
  const extracted = extractPoints(value);
  return 'error' in extracted ? [] : extracted.points;
}

export function withinCap(points: readonly LngLat[], center: LngLat, radius: number): boolean {
  return points.some((point) => centralAngle(center, point) <= radius);
}

/** The central angle from `center` to the nearest of the points (Infinity: none). */
function nearestAngle(points: readonly LngLat[], center: LngLat): number {
  let nearest = Infinity;
  for (const point of points) nearest = Math.min(nearest, centralAngle(center, point));
  return nearest;
}

/** One 2dsphere-indexed field: kdbush is static, so the tree is rebuilt lazily after writes. */
export class GeoIndex {
  readonly name: string;
  readonly field: string;
  private readonly pointsById = new Map<number, LngLat[]>();
  private tree: KDBush | null = null;
  private treeIds: number[] = [];
  /** Per tree point (insertion order): longitude, latitude and the latitude's cosine. */
  private treeLngs = new Float64Array(0);
  private treeLats = new Float64Array(0);
  private treeCosLats = new Float64Array(0);

  constructor(name: string, field: string) {
    this.name = name;
    this.field = field;
  }

  /**
   * The points a document contributes; throws like MongoDB ("Can't extract geo keys") when the
   * field holds something that is not a valid point, so the write is refused.
   */
  pointsOf(id: number, value: unknown): LngLat[] {
    const extracted = extractPoints(value);
    if ('error' in extracted) {
      throw new UnsupportedQueryError(`Can't extract geo keys for index ${this.name} from document ${id}: ${extracted.error}.`);
    }
    return extracted.points;
  }

  set(id: number, points: LngLat[]): void {
    this.pointsById.delete(id);
    if (points.length > 0) this.pointsById.set(id, points);
    this.tree = null;
  }

  remove(id: number): void {
    if (this.pointsById.delete(id)) this.tree = null;
  }

  /**
   * Documents with a point inside the spherical cap (exact test on every candidate), each with the
   * central angle to its nearest point, computed once. In no particular order (`$geoWithin`
   * needs none); `nearest` orders them.
   */
  within(center: LngLat, radius: number): { slots: number[]; angles: number[] } {
    const slots: number[] = [];
    const angles: number[] = [];
    if (this.pointsById.size === 0) return { slots, angles };
    if (radius >= Math.PI) {
      for (const [id, points] of this.pointsById) {
        slots.push(id);
        angles.push(nearestAngle(points, center));
      }
      return { slots, angles };
    }
    const tree = this.ensureTree();
    // A document with several points is a candidate once per point; the first one decides.
    const seen = this.treeIds.length > this.pointsById.size ? new Set<number>() : null;
    const centerCos = latitudeCosine(center[1]);
    // The cap's bounding box: a plain range search, no distance-ordered walk (a city's thousands of
    // venues came out of a priority queue one by one); the exact haversine test below decides.
    for (const point of capCandidates(tree, center, radius)) {
      const id = this.treeIds[point]!;
      if (seen !== null) {
        if (seen.has(id)) continue;
        seen.add(id);
      }
      // A lone point is read from the tree's flat arrays, no lookup or pointer to follow.
      const angle =
        seen === null
          ? angleBetween(center[0], center[1], centerCos, this.treeLngs[point]!, this.treeLats[point]!, this.treeCosLats[point]!)
          : nearestAngle(this.pointsById.get(id) ?? [], center);
      if (angle <= radius) {
        slots.push(id);
        angles.push(angle);
      }
    }
    return { slots, angles };
  }

  /**
   * `within`, nearest first ($geoNear): documents at the same angle in no particular order, so
   * callers that need one sort, in linear time on this order.
   */
  nearest(center: LngLat, radius: number): { slots: number[]; angles: number[] } {
    const { slots, angles } = this.within(center, radius);
    return byAngle(slots, angles, radius);
  }

  private ensureTree(): KDBush {
    if (this.tree !== null) return this.tree;
    let count = 0;
    for (const points of this.pointsById.values()) count += points.length;
    const tree = new KDBush(count);
    const ids: number[] = [];
    this.treeLngs = new Float64Array(count);
    this.treeLats = new Float64Array(count);
    this.treeCosLats = new Float64Array(count);
    for (const [id, points] of this.pointsById) {
      for (const [lng, lat] of points) {
        this.treeLngs[ids.length] = lng;
        this.treeLats[ids.length] = lat;
        this.treeCosLats[ids.length] = latitudeCosine(lat);
        tree.add(lng, lat);
        ids.push(id);
      }
    }
    tree.finish();
    this.tree = tree;
    this.treeIds = ids;
    return tree;
  }
}

/**
 * The points of the tree inside the bounding box of a spherical cap (a superset of the cap). The cap
 * spans `radius` of latitude either side of its centre and, unless it holds a pole, asin(sin r /
 * cos φ) of longitude (where a meridian touches it); a box past ±180° is searched in two parts.
 */
function capCandidates(tree: KDBush, [lng, lat]: LngLat, radius: number): number[] {
  const radiusDegrees = radius / RAD + BOX_MARGIN_DEGREES;
  const south = lat - radiusDegrees;
  const north = lat + radiusDegrees;
  const span = south <= -90 || north >= 90 ? 180 : Math.asin(Math.min(1, Math.sin(radius) / Math.cos(lat * RAD))) / RAD + BOX_MARGIN_DEGREES;
  const [minLat, maxLat] = [Math.max(south, -90), Math.min(north, 90)];
  if (span >= 180) return tree.range(-180, minLat, 180, maxLat);
  const [west, east] = [lng - span, lng + span];
  if (west < -180) return [...tree.range(west + 360, minLat, 180, maxLat), ...tree.range(-180, minLat, east, maxLat)];
  if (east > 180) return [...tree.range(west, minLat, 180, maxLat), ...tree.range(-180, minLat, east - 360, maxLat)];
  return tree.range(west, minLat, east, maxLat);
}

/**
 * Parallel lists ordered by ascending angle in about linear time: the box search returns points in
 * tree order, and a comparison sort of a city's thousands of venues cost more than finding them.
 * Counting sort into as many buckets as entries (angles lie in [0, radius]), then each bucket
 * ordered on its own: by insertion when it holds a few entries, as it nearly always does, by a
 * comparison sort when the points crowd into a narrow ring (a far city inside a wide circle).
 */
function byAngle(slots: number[], angles: number[], radius: number): { slots: number[]; angles: number[] } {
  const n = angles.length;
  if (n < 2) return { slots, angles };
  const scale = radius > 0 ? n / radius : 0;
  const starts = new Uint32Array(n + 1);
  const buckets = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const bucket = Math.min(n - 1, Math.floor(angles[i]! * scale));
    buckets[i] = bucket;
    starts[bucket + 1]! += 1;
  }
  for (let b = 0; b < n; b++) starts[b + 1]! += starts[b]!;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[starts[buckets[i]!]!++] = i;
  // starts[b] is now where bucket b ends (and b + 1 begins).
  for (let b = 0, from = 0; b < n; from = starts[b++]!) {
    const to = starts[b]!;
    if (to - from > SMALL_BUCKET) {
      order.subarray(from, to).sort((x, y) => angles[x]! - angles[y]!);
      continue;
    }
    for (let i = from + 1; i < to; i++) {
      const entry = order[i]!;
      const angle = angles[entry]!;
      let j = i - 1;
      while (j >= from && angles[order[j]!]! > angle) {
        order[j + 1] = order[j]!;
        j--;
      }
      order[j + 1] = entry;
    }
  }
  const sortedSlots = new Array<number>(n);
  const sortedAngles = new Array<number>(n);
  for (let k = 0; k < n; k++) {
    sortedSlots[k] = slots[order[k]!]!;
    sortedAngles[k] = angles[order[k]!]!;
  }
  return { slots: sortedSlots, angles: sortedAngles };
}
