/** Where orch keeps its state: `~/.orchestrator/`, or `ORCH_HOME`. See DESIGN.md "Files". */
import { join } from "node:path"
import type { HostShape } from "../config/host.ts"

export const dataDir = (host: HostShape): string => {
  const override = host.env.ORCH_HOME
  return override !== undefined && override !== "" ? override : join(host.homeDir, ".orchestrator")
}
