/** "did you mean" hints for misspelt keys and names. */
const distance = (a: string, b: string): number => {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!
      row[j] = Math.min(above + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1))
      diagonal = above
    }
  }
  return row[b.length]!
}

/** The closest candidate, if one is close enough to be a plausible typo of `word`. */
export const closest = (word: string, candidates: Iterable<string>): string | undefined => {
  const lower = word.toLowerCase()
  let best: string | undefined
  let bestScore = Math.max(2, Math.floor(word.length / 3)) + 1
  for (const candidate of candidates) {
    const other = candidate.toLowerCase()
    // A long shared start is a strong hint even when the ending differs ("retry" → "retries").
    let shared = 0
    while (shared < lower.length && lower[shared] === other[shared]) shared++
    const sharesStart = shared >= 4 && shared >= lower.length - 1
    const score = Math.min(distance(lower, other), sharesStart ? 1.5 : Infinity)
    if (score < bestScore) {
      best = candidate
      bestScore = score
    }
  }
  return best
}

export const didYouMean = (word: string, candidates: Iterable<string>): string => {
  const match = closest(word, candidates)
  return match === undefined ? "" : ` (did you mean "${match}"?)`
}
