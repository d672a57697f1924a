/**
 * The central angle between two points from their 3-D unit vectors (atan2 of the cross and dot
 * products): the suites' reference for distances, computed independently of the haversine in
 * src/lib/geo.ts and of the engines' own.
 */

/** [longitude, latitude] in degrees, GeoJSON's order. */
export type LngLat = readonly [number, number];

const RAD = Math.PI / 180;

function unitVector([lng, lat]: LngLat): [number, number, number] {
  return [Math.cos(lat * RAD) * Math.cos(lng * RAD), Math.cos(lat * RAD) * Math.sin(lng * RAD), Math.sin(lat * RAD)];
}

/** The angle in radians between `a` and `b`, accurate at every distance (antipodes included). */
export function angleViaVectors(a: LngLat, b: LngLat): number {
  const [ax, ay, az] = unitVector(a);
  const [bx, by, bz] = unitVector(b);
  return Math.atan2(Math.hypot(ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx), ax * bx + ay * by + az * bz);
}
