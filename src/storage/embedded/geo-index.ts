/**
 * 2dsphere support: point extraction with MongoDB's validation, an exact spherical-cap test for
 * `$geoWithin: { $centerSphere }`, and a k-d tree (kdbush + geokdbush) to find candidates fast.
 */
import { around } from 'geokdbush';
import KDBush from 'kdbush';
import { UnsupportedQueryError } from '../../errors.js';
import { isPlainObject } from './bson.js';

export type LngLat = readonly [lng: number, lat: number];

const RAD = Math.PI / 180;
/** geokdbush measures in km on a sphere of this radius; we only pass it angles scaled by it. */
const GEOKDBUSH_EARTH_RADIUS_KM = 6371;

/** Great-circle central angle in radians (haversine); independent of any earth radius. */
export function centralAngle(a: LngLat, b: LngLat): number {
  const dLat = (b[1] - a[1]) * RAD;
  const dLng = (b[0] - a[0]) * RAD;
  const sinLat = Math.sin(dLat / 2);
  const sinLng = Math.sin(dLng / 2);
  const h = sinLat * sinLat + Math.cos(a[1] * RAD) * Math.cos(b[1] * RAD) * sinLng * sinLng;
  return 2 * Math.asin(Math.min(1, Math.sqrt(h)));
}

function isValidLngLat(lng: unknown, lat: unknown): boolean {
  return (
    typeof lng === 'number' &&
    typeof lat === 'number' &&
    Number.isFinite(lng) &&
    Number.isFinite(lat) &&
    lng >= -180 &&
    lng <= 180 &&
    lat >= -90 &&
    lat <= 90
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
        ? { points: [[value[0] as number, value[1] as number]] }
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

/** One 2dsphere-indexed field: kdbush is static, so the tree is rebuilt lazily after writes. */
export class GeoIndex {
  readonly name: string;
  readonly field: string;
  private readonly pointsById = new Map<number, LngLat[]>();
  private tree: KDBush | null = null;
  private treeIds: number[] = [];

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
      throw new UnsupportedQueryError(
        `Can't extract geo keys for index ${this.name} from document ${id}: ${extracted.error}.`,
      );
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

  /** The central angle from `center` to the nearest indexed point of a document (Infinity: none). */
  nearestAngle(id: number, center: LngLat): number {
    let nearest = Infinity;
    for (const point of this.pointsById.get(id) ?? []) nearest = Math.min(nearest, centralAngle(center, point));
    return nearest;
  }

  /** Ids of documents with a point inside the spherical cap (exact test on every candidate). */
  within(center: LngLat, radius: number): Set<number> {
    const result = new Set<number>();
    if (this.pointsById.size === 0) return result;
    if (radius >= Math.PI) {
      for (const id of this.pointsById.keys()) result.add(id);
      return result;
    }
    const tree = this.ensureTree();
    // A slightly larger search radius so float noise in geokdbush never drops a true match;
    // the exact haversine test below decides.
    const searchKm = (radius * (1 + 1e-9) + 1e-12) * GEOKDBUSH_EARTH_RADIUS_KM;
    for (const slot of around(tree, center[0], center[1], Infinity, searchKm)) {
      const id = this.treeIds[slot]!;
      if (result.has(id)) continue;
      if (withinCap(this.pointsById.get(id) ?? [], center, radius)) result.add(id);
    }
    return result;
  }

  private ensureTree(): KDBush {
    if (this.tree !== null) return this.tree;
    let count = 0;
    for (const points of this.pointsById.values()) count += points.length;
    const tree = new KDBush(count);
    const ids: number[] = [];
    for (const [id, points] of this.pointsById) {
      for (const [lng, lat] of points) {
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
