/**
 * The supervisor keeps V8's young generation at its first size. V8 doubles a process's young generation (up to
 * 64 MB on 64-bit Node) whenever enough objects outlive its collections, as they do in a burst of work (admitting 50
 * queued sessions, say). At rest V8 then either kept it (at 100 sessions) or shrank it into a pool of pages it
 * keeps until a collection that reduces memory, which an idle process whose old generation stays small seldom runs:
 * the supervisor rested with 20 to 70 MB more RSS than it held (BENCHMARKS.md, "Supervisor at rest"). It is idle
 * most of the time; more young collections in a burst cost it little. The command-line flag,
 * `--max-semi-space-size`, would reach only a supervisor orch starts itself (the child of `--detach`), not
 * `orch start` in the foreground; `--semi-space-growth-factor` is read each time V8 would grow the young
 * generation, so setting it once this process is the supervisor holds for both.
 */
import { setFlagsFromString } from "node:v8"

export const keepYoungGenerationSmall = (): void => setFlagsFromString("--semi-space-growth-factor=1")
