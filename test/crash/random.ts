/** A seeded pseudo-random source (mulberry32): the same seed gives the same schedule, so a violation replays. */
export interface Random {
  /** A number in [0, 1). */
  readonly next: () => number
  /** An integer in [min, max]. */
  readonly int: (min: number, max: number) => number
  readonly pick: <A>(items: ReadonlyArray<A>) => A
}

/** murmur3's finalizer: neighbouring seeds start far apart (mulberry32's first draws of seeds 1, 2, 3 are alike). */
const mix = (seed: number) => {
  let h = seed >>> 0
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return (h ^ (h >>> 16)) >>> 0
}

export const seeded = (seed: number): Random => {
  let state = mix(seed)
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1))
  return { next, int, pick: (items) => items[int(0, items.length - 1)]! }
}
