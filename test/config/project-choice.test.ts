import { describe, expect, it } from "@effect/vitest"
import { chooseProject } from "../../src/config/project-choice.ts"

const one = { app: { id: "app" } }
const keyed = { "my-app": { id: "app" } }
const two = { app: { id: "app" }, web: { id: "web" } }

describe("which project a command means", () => {
  it.each(
    [
      ["the only one, none named", one, undefined, { _tag: "Chosen", key: "app", project: { id: "app" } }],
      ["the only one, by its key", keyed, undefined, { _tag: "Chosen", key: "my-app", project: { id: "app" } }],
      ["named by key", keyed, "my-app", { _tag: "Chosen", key: "my-app", project: { id: "app" } }],
      ["named by id", keyed, "app", { _tag: "Chosen", key: "my-app", project: { id: "app" } }],
      ["named, among several", two, "web", { _tag: "Chosen", key: "web", project: { id: "web" } }],
      ["several, none named", two, undefined, { _tag: "NotGiven", count: 2 }],
      ["no project at all", {}, undefined, { _tag: "NotGiven", count: 0 }],
      ["a name that is no project", two, "wbe", { _tag: "Unknown", ref: "wbe" }]
    ] as const
  )("%s", (_name, projects, ref, choice) => {
    expect(chooseProject(projects, ref)).toEqual(choice)
  })
})
