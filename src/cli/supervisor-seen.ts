/**
 * What a command that only reads (`orch status`, `orch queue ls`) learns of the supervisor from its light ping: its
 * answer; or, for one that holds its socket but does not answer, its pid and a warning; or, for one on its way out
 * (its socket closed, its process still there), a warning.
 */
import { type PingAnswer, pingResult, stoppingMessage, unansweredMessage } from "../ipc/raw-ping.ts"
import { readSupervisorFile, socketPath, stoppingSupervisor } from "../store/supervisor-file.ts"

export interface SupervisorSeen {
  readonly answer?: PingAnswer
  /** It holds its socket but did not answer: the pid `supervisor.json` names, when it names one. */
  readonly silent?: { readonly pid: number | undefined }
  /** What to warn of, in a sentence. */
  readonly warning?: string
}

export const seeSupervisor = async (root: string): Promise<SupervisorSeen> => {
  const ping = await pingResult(socketPath(root))
  if (ping._tag === "Answered") return { answer: ping.answer }
  if (ping._tag === "Silent") {
    const pid = readSupervisorFile(root)?.pid
    return { silent: { pid }, warning: unansweredMessage(pid, socketPath(root)) }
  }
  const stopping = stoppingSupervisor(root)
  return stopping === undefined ? {} : { warning: stoppingMessage(stopping.pid) }
}
