/** The commented `orchestrator.yaml` that `orch init` writes: every default shown, and the repository's project. */
import { stringify } from "yaml"
import type { OrchestratorConfig } from "./schema.ts"

export interface InitProject {
  readonly key: string
  readonly repo: string
  readonly path: string
  readonly defaultBranch: string
  /** No GitHub origin: the project gets `tracker: none` and `scm: none` (work with `orch spawn <project> --task`). */
  readonly local?: boolean
}

/** The project's entry as `orch init` writes it. */
export const projectEntry = (project: InitProject, path = project.path): Record<string, unknown> => ({
  repo: project.repo,
  path,
  defaultBranch: project.defaultBranch,
  ...(project.local === true ? { tracker: "none", scm: "none" } : {})
})

const commented = (text: string, indent = "") => text.trimEnd().split("\n").map((line) => `${indent}# ${line}`.trimEnd()).join("\n")

const projectBlock = (project: InitProject): string =>
  [
    stringify({ projects: { [project.key]: projectEntry(project) } }).trimEnd(),
    "    # sessionPrefix: derived from the directory name unless set",
    "    # agentRules: |",
    "    #   Rules every agent of this project gets in its prompt.",
    "    # agentConfig:",
    "    #   permissions: skip      # skip | auto-edit | default",
    "    #   model: opus"
  ].join("\n")

export const renderInitConfig = (defaults: OrchestratorConfig, project: InitProject): string =>
  [
    "# orch configuration. Every option is described in orchestrator.example.yaml and `orch config schema`.",
    "# Values may use environment variables: ${VAR} or ${VAR:-default}. Keep secrets there, not in this file.",
    "# Commented lines show the defaults.",
    "",
    `# host: ${defaults.host}             # address the dashboard listens on (0.0.0.0: every interface)`,
    `# port: ${defaults.port}                  # web dashboard`,
    `# terminalPort: ${defaults.terminalPort}          # terminal WebSocket (every session's terminal)`,
    `# directTerminalPort: ${defaults.directTerminalPort}    # deprecated: the same sockets as terminalPort`,
    `# readyThresholdMs: ${defaults.readyThresholdMs}    # a ready session counts as idle after this long`,
    `# pollIntervalMs: ${defaults.pollIntervalMs}       # base interval of the repohost poll`,
    "",
    commented(stringify({ defaults: defaults.defaults })),
    "",
    projectBlock(project),
    "",
    "# hosts:                     # other machines sessions may run on, through OpenSSH (docs/scale-out.md)",
    "#   big-box:",
    "#     ssh: me@big-box.lan:22",
    "#     identityFile: ~/.ssh/id_ed25519   # ~ is this machine's $HOME",
    "#     maxSessions: 8",
    "# maxSessions: 8             # at most this many sessions at once, all projects (unset: no limit)",
    "",
    "# notifiers:                 # named notifier instances, used in notificationRouting",
    "#   team-chat:",
    "#     plugin: chat",
    "#     webhookUrl: ${SLACK_WEBHOOK_URL}",
    "",
    commented(stringify({ notificationRouting: defaults.notificationRouting }, { flowCollectionPadding: false })),
    "",
    commented(stringify({ reactions: defaults.reactions }, { lineWidth: 0 })),
    ""
  ].join("\n")
