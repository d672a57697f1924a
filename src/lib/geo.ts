/**
 * Great-circle arithmetic on the unit sphere: the one haversine of the project. Angles are
 * radians of arc, independent of any Earth radius (src/query/geo.ts turns them into distances).
 */

/** A point as GeoJSON and MongoDB write it: longitude first. */
export type LngLat = readonly [lng: number, lat: number];

/** Radians per degree. */
export const RAD = Math.PI / 180;

/**
 * The cosine of a latitude in degrees, as `centralAngle` computes it: a caller that keeps it (the
 * embedded geo index, a point's once) passes it to `angleBetween` and gets the same bits.
 */
export function latitudeCosine(lat: number): number {
  return Math.cos(lat * RAD);
}

/** Central angle between two points (haversine), in radians. */
export function centralAngle(a: LngLat, b: LngLat): number {
  return angleBetween(a[0], a[1], latitudeCosine(a[1]), b[0], b[1], latitudeCosine(b[1]));
}

/**
 * centralAngle with the cosines of both latitudes given (`latitudeCosine`). The one formula for
 * both, so an index that keeps the cosines and a matcher that does not agree to the last bit on a
 * point at the edge of a radius.
 */
export function angleBetween(aLng: number, aLat: number, aCos: number, bLng: number, bLat: number, bCos: number): number {
  const dLat = (bLat - aLat) * RAD;
  const dLng = (bLng - aLng) * RAD;
  const sinLat = Math.sin(dLat / 2);
  const sinLng = Math.sin(dLng / 2);
  const h = sinLat * sinLat + aCos * bCos * sinLng * sinLng;
  // Rounding can push h a hair past 1 for antipodal points; asin would give NaN.
  return 2 * Math.asin(Math.min(1, Math.sqrt(h)));
}
