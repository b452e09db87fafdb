/*
 * A small deterministic PRNG. Every generated record gets its own generator seeded by
 * (seed, kind, index), so record N is the same whatever the counts or the chunking, and a chunk
 * can be generated without generating the ones before it.
 */

/** 32-bit FNV-1a of a string: spreads short, similar seeds ("x:event:1", "x:event:2") apart. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

const alphanumeric = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
const hex = '0123456789abcdef';

/** mulberry32: fast, 32 bits of state, good enough for test data (not for anything secret). */
export class Rng {
  private state: number;

  constructor(seed: number) {
    // Mixing once keeps neighbouring seeds from starting with neighbouring outputs.
    this.state = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) >>> 0;
  }

  static of(seed: string, kind: string, index: number): Rng {
    return new Rng(hash32(`${seed}:${kind}:${index}`));
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** An index in [0, n) skewed towards 0 (a few popular feeds, prolific authors, busy tags). */
  skewed(n: number, power = 2): number {
    return Math.min(n - 1, Math.floor(this.next() ** power * n));
  }

  /** `count` distinct indexes in [0, n), skewed like `skewed`. */
  distinct(n: number, count: number, power = 1): number[] {
    const chosen = new Set<number>();
    const wanted = Math.min(count, n);
    // Bounded retries: with a strong skew the popular indexes collide often.
    for (let tries = 0; chosen.size < wanted && tries < wanted * 20; tries++) chosen.add(this.skewed(n, power));
    return [...chosen];
  }

  /** A UUID version 4 made of this generator's bits (deterministic, still the right format). */
  uuid(): string {
    let out = '';
    for (let i = 0; i < 32; i++) {
      let digit = this.int(0, 15);
      if (i === 12) digit = 4;
      if (i === 16) digit = 8 + (digit & 3);
      out += hex[digit];
      if (i === 7 || i === 11 || i === 15 || i === 19) out += '-';
    }
    return out;
  }

  /** `length` characters of [0-9a-zA-Z] (calendar event ids are 12). */
  alphanumeric(length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += alphanumeric[this.int(0, 61)];
    return out;
  }
}
