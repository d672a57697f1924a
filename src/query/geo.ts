/**
 * Geolocation arithmetic of the API: radius units, distances on the mean Earth radius, and the
 * `$centerSphere` clause the venues' 2dsphere index serves. Angles between points are src/lib/geo.ts's.
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

/** A distance in the request's unit, rounded to 2 decimals. */
export function reportDistance(radians: number, unit: DistanceUnit): number {
  return Math.round(fromKm(radians * EARTH_RADIUS_KM, unit) * 100) / 100;
}

/** Venues whose location lies within `radius` of the point: served by the 2dsphere index. */
export function withinRadius(point: readonly [number, number], radius: number, unit: DistanceUnit): Filter {
  return { location: { $geoWithin: { $centerSphere: [[point[0], point[1]], toRadians(radius, unit)] } } };
}
