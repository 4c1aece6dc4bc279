/** "did you mean" hints for misspelt keys and names. */

/** Edits between two words, a swap of two neighbouring letters counting as one ("prot" → "port"). */
const distance = (a: string, b: string): number => {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)))
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1)
      rows[i]![j] = best
    }
  }
  return rows[a.length]![b.length]!
}

/** `word` is `other` with letters left out, starting the same way ("prots" → "projects"): a shortening, not noise. */
const isShortening = (word: string, other: string): boolean => {
  if (word.length < 4 || other.length > word.length * 2 || word[0] !== other[0]) return false
  let at = 0
  for (const letter of other) if (letter === word[at]) at++
  return at === word.length
}

/** How far `candidate` is from `word` as a typo; lower is closer. */
const typoScore = (word: string, candidate: string): number => {
  const lower = word.toLowerCase()
  const other = candidate.toLowerCase()
  // A long shared start is a strong hint even when the ending differs ("retry" → "retries").
  let shared = 0
  while (shared < lower.length && lower[shared] === other[shared]) shared++
  const sharesStart = shared >= 4 && shared >= lower.length - 1
  return Math.min(distance(lower, other), sharesStart ? 1.5 : Infinity, isShortening(lower, other) ? 2 : Infinity)
}

/** Every candidate at the best score that is close enough to be a plausible typo of `word`, in the candidates' order. */
const closestAll = (word: string, candidates: Iterable<string>): Array<string> => {
  let best: Array<string> = []
  let bestScore = Math.max(2, Math.floor(word.length / 3)) + 1
  for (const candidate of candidates) {
    const score = typoScore(word, candidate)
    if (score < bestScore) {
      best = [candidate]
      bestScore = score
    } else if (score === bestScore && best.length > 0) {
      best.push(candidate)
    }
  }
  return best
}

/** The closest candidate, if one is close enough to be a plausible typo of `word`. */
export const closest = (word: string, candidates: Iterable<string>): string | undefined => closestAll(word, candidates)[0]

/** ` (did you mean "x"?)`, naming two candidates when the typo is as close to both ("prots": "port" or "projects"). */
export const didYouMean = (word: string, candidates: Iterable<string>): string => {
  const [first, second] = closestAll(word, candidates)
  if (first === undefined) return ""
  return second === undefined ? ` (did you mean "${first}"?)` : ` (did you mean "${first}" or "${second}"?)`
}
