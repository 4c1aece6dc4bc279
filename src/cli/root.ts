/** The `orch` command tree. */
import { Command } from "effect/cli"
import { attach } from "./attach.ts"
import { config } from "./config.ts"
import { demo } from "./demo.ts"
import { doctor } from "./doctor.ts"
import { hosts } from "./hosts.ts"
import { init } from "./init.ts"
import { notifications, notify } from "./notify.ts"
import { queue } from "./queue.ts"
import { report } from "./report.ts"
import { send } from "./send.ts"
import { session } from "./session.ts"
import { batchSpawn, spawn } from "./spawn.ts"
import { start, stop } from "./start.ts"
import { status } from "./status.ts"
import { train } from "./train.ts"

export const orch = Command.make("orch").pipe(
  Command.withDescription("Launch and supervise AI coding-agent sessions, one per issue"),
  Command.withSubcommands([
    start,
    stop,
    spawn,
    batchSpawn,
    queue,
    train,
    status,
    hosts,
    send,
    report,
    attach,
    session,
    notify,
    notifications,
    init,
    config,
    demo,
    doctor
  ])
)
