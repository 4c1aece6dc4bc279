/**
 * A project's runtime across hosts: a session's handle names its host (`data.host`, set by the host's tmux), and
 * each call goes where the session is — the project's own runtime for local sessions, the host's tmux through its
 * connection for the others. New sessions are made on `createOn`. Probing groups handles per host: one round trip
 * per host, whatever the number of its sessions; a host that cannot answer leaves its sessions out of the answer
 * (unprobed: `unknown`, never exited).
 */
import * as Effect from "effect/Effect"
import { LOCAL } from "../../config/host-spec.ts"
import type { RuntimeHandle } from "../../domain/session.ts"
import { TerminalUnavailable } from "../../domain/terminal.ts"
import type { HostError } from "../../hosts/errors.ts"
import type { makeRemoteTmux } from "./remote-tmux.ts"
import { type Liveness, RuntimeError, type RuntimeShape } from "./Runtime.ts"

export type RemoteTmux = ReturnType<typeof makeRemoteTmux>

/** The host a handle's session runs on. */
export const handleHost = (handle: RuntimeHandle): string => typeof handle.data.host === "string" ? handle.data.host : LOCAL

/** Handles by host, in first-seen order: a pure grouping. */
export const byHost = (handles: ReadonlyArray<RuntimeHandle>): ReadonlyMap<string, ReadonlyArray<RuntimeHandle>> => {
  const groups = new Map<string, Array<RuntimeHandle>>()
  for (const handle of handles) {
    const host = handleHost(handle)
    groups.set(host, [...(groups.get(host) ?? []), handle])
  }
  return groups
}

const asRuntimeError = (operation: string) => (error: RuntimeError | HostError) =>
  error._tag === "RuntimeError" ? error : new RuntimeError({ plugin: "multiplexer", operation, reason: error.message })

export const makeHostRuntime = (local: RuntimeShape, remote: (host: string) => RemoteTmux | undefined, createOn: string): RuntimeShape => {
  const on = (handle: RuntimeHandle, operation: string) => {
    const host = handleHost(handle)
    if (host === LOCAL) return Effect.succeed(undefined)
    const tmux = remote(host)
    return tmux !== undefined
      ? Effect.succeed(tmux)
      : Effect.fail(
        new RuntimeError({
          plugin: "multiplexer",
          operation,
          reason: `the session runs on host ${host}, which the config no longer names; add it back under hosts`
        })
      )
  }
  return {
    ...local,
    name: local.name,
    create: (spec) => {
      if (createOn === LOCAL) return local.create(spec)
      const tmux = remote(createOn)
      return tmux === undefined
        ? Effect.fail(new RuntimeError({ plugin: "multiplexer", operation: "new-session", reason: `there is no host named ${createOn}` }))
        : tmux.create(spec).pipe(Effect.mapError(asRuntimeError("new-session")))
    },
    attach: (handle, size, options) => {
      const host = handleHost(handle)
      if (host === LOCAL) {
        return local.attach !== undefined
          ? local.attach(handle, size, options)
          : Effect.fail(new TerminalUnavailable({ sessionId: handle.id, reason: "this session's runtime has no terminal to show" }))
      }
      const tmux = remote(host)
      return tmux !== undefined
        ? tmux.attach(handle, size, options)
        : Effect.fail(
          new TerminalUnavailable({
            sessionId: handle.id,
            reason: `the session runs on host ${host}, which the config no longer names; add it back under hosts`
          })
        )
    },
    send: (handle, text) =>
      Effect.flatMap(
        on(handle, "send"),
        (tmux) =>
          tmux === undefined
            ? local.send(handle, text)
            : tmux.send(handle, text).pipe(Effect.mapError((error) => error._tag === "DeliveryUnconfirmed" ? error : asRuntimeError("send")(error)))
      ),
    capture: (handle, scrollback) =>
      Effect.flatMap(
        on(handle, "capture-pane"),
        (tmux) =>
          tmux === undefined ? local.capture(handle, scrollback) : tmux.capture(handle, scrollback).pipe(Effect.mapError(asRuntimeError("capture-pane")))
      ),
    destroy: (handle) =>
      Effect.flatMap(
        on(handle, "kill-session"),
        (tmux) => tmux === undefined ? local.destroy(handle) : tmux.destroy(handle).pipe(Effect.mapError(asRuntimeError("kill-session")))
      ),
    probe: Effect.fn("HostRuntime.probe")(function*(handles: ReadonlyArray<RuntimeHandle>) {
      const answers = yield* Effect.forEach([...byHost(handles)], ([host, mine]) => {
        if (host === LOCAL) return local.probe(mine)
        const tmux = remote(host)
        if (tmux === undefined) return Effect.succeed(new Map<string, Liveness>())
        return tmux.probe(mine).pipe(
          Effect.catch((error) =>
            Effect.as(
              Effect.logWarning(`host ${host}: its sessions could not be probed (${error.message}); they read unknown until it answers`),
              new Map<string, Liveness>()
            )
          )
        )
      }, { concurrency: "unbounded" })
      return new Map(answers.flatMap((answer) => [...answer]))
    })
  }
}
