/**
 * Geolocation arithmetic (design §6, issue 6): great-circle distances on the mean Earth radius,
 * radius units, and the `$centerSphere` clause the venues' 2dsphere index serves.
 */
import { type Filter } from '../storage/port.js';

/** Mean Earth radius (IUGG), used for every distance we report. */
export const EARTH_RADIUS_KM = 6371.0088;
export const KM_PER_MILE = 1.609344;

export type DistanceUnit = 'mi' | 'km';

export const DEFAULT_RADIUS = 25;
export const MAX_RADIUS = 500;

export function toKm(value: number, unit: DistanceUnit): number {
  return unit === 'mi' ? value * KM_PER_MILE : value;
}

export function fromKm(km: number, unit: DistanceUnit): number {
  return unit === 'mi' ? km / KM_PER_MILE : km;
}

/** Radians of arc for a distance on the sphere. */
export function toRadians(value: number, unit: DistanceUnit): number {
  return toKm(value, unit) / EARTH_RADIUS_KM;
}

/** A distance in the request's unit, rounded to 2 decimals (issue 6). */
export function reportDistance(radians: number, unit: DistanceUnit): number {
  return Math.round(fromKm(radians * EARTH_RADIUS_KM, unit) * 100) / 100;
}

const rad = (deg: number) => (deg * Math.PI) / 180;

/** Central angle between two [lng, lat] points (haversine), in radians. */
export function centralAngle(a: readonly [number, number], b: readonly [number, number]): number {
  const dLat = rad(b[1] - a[1]);
  const dLng = rad(b[0] - a[0]);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a[1])) * Math.cos(rad(b[1])) * Math.sin(dLng / 2) ** 2;
  return 2 * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Venues whose location lies within `radius` of the point: served by the 2dsphere index. */
export function withinRadius(point: readonly [number, number], radius: number, unit: DistanceUnit): Filter {
  return { location: { $geoWithin: { $centerSphere: [[point[0], point[1]], toRadians(radius, unit)] } } };
}
