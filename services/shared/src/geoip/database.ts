/**
 * Reads the geo-IP database that the pinned `geoip-lite` package ships (its data/ folder) by position: each lookup
 * is a binary search of `pread`s over fixed-size records, so the files stay in the OS page cache (shared, and
 * evictable) instead of ~110 MB of buffers on our heap, as `require("geoip-lite")` would hold (issue 20: < 120 MB RSS).
 *
 * The files' layout (geoip-lite 2.0.3, lib/geoip.js), every integer big-endian:
 * - geoip-city.dat, IPv4, 24-byte records sorted by start: start u32, end u32 (inclusive), location u32
 *   (0xffffffff: none), latitude i32 and longitude i32 (× 10,000), metro area u32.
 * - geoip-city6.dat, IPv6, 48-byte records: start and end (16 bytes each), then location, latitude, longitude and
 *   area as in IPv4. Addresses compare on their upper 64 bits only, as geoip-lite does.
 * - geoip-city-names.dat, 88-byte records numbered by location: country (2), region (3), metro i32, EU flag (1),
 *   time zone (32), city (46); text is UTF-8 padded with NUL bytes.
 *
 * Compared on 64 bits, about a quarter of the IPv6 ranges overlap (sub-/64 ranges inside a wider one), so which record
 * answers depends on the search path: the search below takes geoip-lite's path, so the answers are the package's.
 */
import { fstatSync, openSync, readSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** A located range: the fields of its location record, plus the range's own coordinates. */
export interface GeoRecord {
  readonly country: string;
  readonly region: string;
  readonly city: string;
  readonly timezone: string;
  readonly latitude: number;
  readonly longitude: number;
}

const NO_LOCATION = 0xffffffff;

/** A file of fixed-size records, read one record at a time into a buffer of its own (reused by the next read). */
class RecordFile {
  readonly count: number;
  private readonly fd: number;
  private readonly record: Buffer;

  constructor(path: string, readonly recordSize: number) {
    this.fd = openSync(path, "r");
    const { size } = fstatSync(this.fd);
    if (size === 0 || size % recordSize !== 0) throw new Error(`geo-IP data ${path}: ${size} bytes is not a whole number of ${recordSize}-byte records`);
    this.count = size / recordSize;
    this.record = Buffer.alloc(recordSize);
  }

  read(index: number): Buffer {
    const bytes = readSync(this.fd, this.record, 0, this.recordSize, index * this.recordSize);
    if (bytes !== this.recordSize) throw new Error(`geo-IP data: short read of record ${index}`);
    return this.record;
  }
}

/**
 * Levels of the binary search whose records' bounds stay in memory once read: every search passes the same first
 * records, so this cuts the reads per lookup from ~22 to ~10 for at most 4,095 bounds per file (a few hundred KB).
 */
const CACHED_LEVELS = 12;

/** A file of ranges sorted by start, and how to read a range's bounds from one of its records. */
class RangeFile<K extends number | bigint> {
  private readonly file: RecordFile;
  private readonly upperLevels = new Map<number, readonly [K, K]>();
  private readonly first: K;
  private readonly last: K;

  constructor(
    path: string,
    recordSize: number,
    private readonly bounds: (record: Buffer) => readonly [K, K],
    /** Byte offset of the location index; latitude and longitude follow it. */
    readonly locationAt: number,
  ) {
    this.file = new RecordFile(path, recordSize);
    this.first = bounds(this.file.read(0))[0];
    this.last = bounds(this.file.read(this.file.count - 1))[1];
  }

  /** The record whose range holds `key` (valid until the next call), or null. */
  find(key: K): Buffer | null {
    if (key < this.first || key > this.last) return null;
    let low = 0;
    let high = this.file.count - 1;
    for (let level = 0; ; level++) {
      const mid = (low + high) >>> 1;
      const [start, end] = level < CACHED_LEVELS ? this.cachedBounds(mid) : this.bounds(this.file.read(mid));
      if (start <= key && key <= end) return this.file.read(mid);
      if (low === high) return null;
      if (low === high - 1) low = high; // mid was low: high is the last candidate
      else if (key < start) high = mid;
      else low = mid;
    }
  }

  private cachedBounds(index: number): readonly [K, K] {
    let bounds = this.upperLevels.get(index);
    if (!bounds) {
      bounds = this.bounds(this.file.read(index));
      this.upperLevels.set(index, bounds);
    }
    return bounds;
  }
}

/** The text in `buf[start, start + length)` up to its first NUL byte. */
function text(buf: Buffer, start: number, length: number): string {
  const nul = buf.indexOf(0, start);
  return buf.toString("utf8", start, nul >= start && nul < start + length ? nul : start + length);
}

export class GeoIpDatabase {
  private readonly v4: RangeFile<number>;
  private readonly v6: RangeFile<bigint>;
  private readonly names: RecordFile;

  /** Opens the data files in `dir` (default: the installed geoip-lite package's data/ folder); nothing is loaded. */
  constructor(dir = join(dirname(createRequire(import.meta.url).resolve("geoip-lite")), "..", "data")) {
    this.v4 = new RangeFile(join(dir, "geoip-city.dat"), 24, (r) => [r.readUInt32BE(0), r.readUInt32BE(4)], 8);
    this.v6 = new RangeFile(join(dir, "geoip-city6.dat"), 48, (r) => [r.readBigUInt64BE(0), r.readBigUInt64BE(16)], 32);
    this.names = new RecordFile(join(dir, "geoip-city-names.dat"), 88);
  }

  /** Where a valid IPv4 address (dotted quad) is, or null when the database does not know it. */
  lookup4(ip: string): GeoRecord | null {
    let key = 0;
    for (const octet of ip.split(".")) key = key * 256 + Number(octet);
    return this.located(this.v4.find(key), this.v4.locationAt);
  }

  /** Where a valid IPv6 address is, or null when the database does not know it. */
  lookup6(ip: string): GeoRecord | null {
    return this.located(this.v6.find(upper64(ip)), this.v6.locationAt);
  }

  private located(range: Buffer | null, at: number): GeoRecord | null {
    if (!range) return null;
    const location = range.readUInt32BE(at);
    if (location === NO_LOCATION || location >= this.names.count) return null;
    const latitude = range.readInt32BE(at + 4) / 10_000;
    const longitude = range.readInt32BE(at + 8) / 10_000;
    const name = this.names.read(location);
    return { country: text(name, 0, 2), region: text(name, 2, 3), timezone: text(name, 10, 32), city: text(name, 42, 46), latitude, longitude };
  }
}

/** The upper 64 bits (network part) of a valid IPv6 address, e.g. "2001:db8::1" → 0x20010db800000000. */
function upper64(ip: string): bigint {
  const gap = ip.indexOf("::");
  const groups = (part: string): string[] => (part === "" ? [] : part.split(":"));
  let hextets = groups(gap < 0 ? ip : ip.slice(0, gap));
  if (gap >= 0) {
    const right = groups(ip.slice(gap + 2));
    // A dotted IPv4 tail ("::ffff:1.2.3.4") fills two groups.
    const width = right.length + (right.at(-1)?.includes(".") ? 1 : 0);
    hextets = [...hextets, ...Array<string>(8 - hextets.length - width).fill("0"), ...right];
  }
  let key = 0n;
  for (let i = 0; i < 4; i++) key = (key << 16n) | BigInt(Number.parseInt(hextets[i]!, 16));
  return key;
}
