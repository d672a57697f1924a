/**
 * PHP's strtotime (locutus' port) on a clock of its own, without touching any global.
 *
 * locutus does all its calendar arithmetic through the local-time getters and setters of `Date`,
 * so on the real `Date` its answers depend on the process's TZ, and a wall clock inside a local DST
 * gap is silently shifted. Its module is therefore compiled here as a function whose `Date` is a
 * parameter, and handed a `Date` whose "local" time is UTC plus a fixed shift: a zone without DST,
 * so the arithmetic is exact for every wall clock and the same whatever TZ the process has.
 *
 * The shift also tells the two kinds of answer apart in one run. A string that names its zone (an
 * offset, `Z`, `UTC`, an abbreviation, `@timestamp`) makes locutus convert the wall clock it built
 * with `setUTCFullYear`/`setUTCHours`, which it calls for nothing else, and only when the named
 * offset differs from the local one: it names it in whole minutes and compares it, in seconds, with
 * a local offset of 7 minutes, so the two never match and every zoned string is converted. A
 * string without a zone leaves the wall clock as built, read in the shifted "local" time.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

const MINUTE_MS = 60_000;
/** The "local" time's offset from UTC: no real zone has it (see above). */
const SHIFT_MS = 7 * MINUTE_MS;

/** Whether locutus converted the current run's wall clock from a zone the string named. */
let zoned = false;

/** A `Date` whose local time is UTC + SHIFT_MS; it notes when locutus converts from a named zone. */
class ShiftedDate extends Date {
  constructor(...args: unknown[]) {
    if (args.length >= 2) {
      const [year, month, day = 1, hour = 0, minute = 0, second = 0, ms = 0] = args as number[];
      const d = new Date(0);
      d.setUTCFullYear(year as number, month, day);
      d.setUTCHours(hour, minute, second, ms);
      super(d.getTime() - SHIFT_MS);
    } else if (args.length === 1) {
      super(args[0] as number | string | Date);
    } else {
      super();
    }
  }
  /** This instant's local wall clock, as a Date read in UTC. */
  private wall(): Date {
    return new Date(this.getTime() + SHIFT_MS);
  }
  private setWall(mutate: (w: Date) => void): number {
    const w = this.wall();
    mutate(w);
    return this.setTime(w.getTime() - SHIFT_MS);
  }
  override getTimezoneOffset(): number {
    return -SHIFT_MS / MINUTE_MS;
  }
  override getFullYear(): number {
    return this.wall().getUTCFullYear();
  }
  override getMonth(): number {
    return this.wall().getUTCMonth();
  }
  override getDate(): number {
    return this.wall().getUTCDate();
  }
  override getDay(): number {
    return this.wall().getUTCDay();
  }
  override getHours(): number {
    return this.wall().getUTCHours();
  }
  override getMinutes(): number {
    return this.wall().getUTCMinutes();
  }
  override getSeconds(): number {
    return this.wall().getUTCSeconds();
  }
  override getMilliseconds(): number {
    return this.wall().getUTCMilliseconds();
  }
  override setFullYear(...args: [number, number?, number?]): number {
    return this.setWall((w) => Date.prototype.setUTCFullYear.apply(w, args as [number]));
  }
  override setMonth(...args: [number, number?]): number {
    return this.setWall((w) => Date.prototype.setUTCMonth.apply(w, args as [number]));
  }
  override setDate(date: number): number {
    return this.setWall((w) => w.setUTCDate(date));
  }
  override setHours(...args: [number, number?, number?, number?]): number {
    return this.setWall((w) => Date.prototype.setUTCHours.apply(w, args as [number]));
  }
  override setMinutes(...args: [number, number?, number?]): number {
    return this.setWall((w) => Date.prototype.setUTCMinutes.apply(w, args as [number]));
  }
  override setSeconds(...args: [number, number?]): number {
    return this.setWall((w) => Date.prototype.setUTCSeconds.apply(w, args as [number]));
  }
  override setMilliseconds(ms: number): number {
    return this.setWall((w) => w.setUTCMilliseconds(ms));
  }
  override setUTCFullYear(...args: [number, number?, number?]): number {
    zoned = true;
    return Date.prototype.setUTCFullYear.apply(this, args as [number]);
  }
}

type Strtotime = (text: string, now: number) => unknown;

/** locutus' module compiled with ShiftedDate as its `Date` (the source is its own; only the binding differs). */
function loadStrtotime(): Strtotime {
  const require = createRequire(import.meta.url);
  const filename = require.resolve('locutus/php/datetime/strtotime');
  const compiled = vm.compileFunction(readFileSync(filename, 'utf8'), ['exports', 'require', 'module', '__filename', '__dirname', 'Date'], { filename }) as (
    ...args: unknown[]
  ) => void;
  const module: { exports: unknown } = { exports: {} };
  compiled(module.exports, require, module, filename, path.dirname(filename), ShiftedDate);
  // locutus 2 exports the function itself, locutus 3 a named export.
  const exported = module.exports as Strtotime | { strtotime: Strtotime };
  return typeof exported === 'function' ? exported : exported.strtotime;
}

const strtotime = loadStrtotime();

/** What strtotime made of a string: an instant (the string named its zone) or a wall clock. */
export type StrtotimeResult = { kind: 'instant'; ms: number } | { kind: 'wall'; wallMs: number };

/**
 * `text` read by PHP's rules, relative phrases counted from the wall clock `nowWallMs` (a wall
 * clock as milliseconds read in UTC, whole seconds). Null when PHP rejects it. A result without a
 * zone is a wall clock (milliseconds read in UTC), to be placed in the caller's zone.
 */
export function phpStrtotime(text: string, nowWallMs: number): StrtotimeResult | null {
  zoned = false;
  let seconds: unknown;
  try {
    seconds = strtotime(text, Math.floor((nowWallMs - SHIFT_MS) / 1000));
  } catch {
    return null;
  }
  if (typeof seconds !== 'number' || !Number.isFinite(seconds)) return null;
  return zoned ? { kind: 'instant', ms: seconds * 1000 } : { kind: 'wall', wallMs: seconds * 1000 + SHIFT_MS };
}
