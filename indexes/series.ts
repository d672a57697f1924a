import { type IndexDefinition } from '../src/storage/port.js';

export const seriesIndexes: IndexDefinition[] = [
  // A series' slug starts its occurrences' slugs (`<series slug>-<YYYY-MM-DD>`): unique among series.
  { name: 'series_slug_unique', key: { slug: 1 }, unique: true },
  // Writing occurrences as time passes: the series whose next unwritten date is inside the horizon.
  { name: 'series_next_date_id', key: { nextDate: 1, _id: 1 } },
] satisfies IndexDefinition[];
