/**
 * Typings for `zipcodes` (BSD; US ZIP codes and Canadian forward sortation areas with
 * coordinates). The package ships no types of its own; only what this project uses is declared.
 */
declare module 'zipcodes' {
  interface ZipCode {
    /** Five-digit US ZIP, or three-character Canadian FSA ("K1A"). */
    zip: string;
    /** A number, but null, 0 or shifted for a few hundred dirty rows (military ZIPs, some FSAs). */
    latitude: number | null;
    longitude: number | null;
    city: string;
    /** US: two-letter code ("CA", also "PR", "GU", "AA"…); Canada: province name. */
    state: string;
    /** "US" or "Canada". */
    country: string;
  }
  /** Every entry, keyed by ZIP / FSA. */
  export const codes: Record<string, ZipCode>;
  export function lookup(zip: string | number): ZipCode | undefined;
}
