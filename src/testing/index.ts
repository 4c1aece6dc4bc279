/**
 * `orch/testing`: what orch's own tests use, for testing a reactions config or a plugin deterministically. TestOrch
 * runs orch whole in-process on the TestClock with the fakes below in the slots a test gives no Layer for; each fake
 * is also a Layer of its own (`Runtime.layerTest(makeTestRuntime())`, …) for testing one piece. docs/library.md
 * shows them at work.
 */
export { makeTestAgent, type TestAgent } from "../plugins/agent/Agent.ts"
export { makeTestNotifier, type TestNotifier } from "../plugins/notifier/Notifier.ts"
export { makeTestRuntime, type TestRuntime, type TestTerminal } from "../plugins/runtime/Runtime.ts"
export { makeTestScm, type TestScm } from "../plugins/scm/Scm.ts"
export { makeTestTracker, type TestTracker } from "../plugins/tracker/Tracker.ts"
export { makeTestWorkspace, type TestWorkspace, type TestWorkspaceEntry } from "../plugins/workspace/Workspace.ts"
export { type PullRequestState, pullRequestView } from "./pull-request.ts"
export { type AgentStep, type ScriptedAgent, scriptedAgent } from "./scripted-agent.ts"
export { TestOrch, type TestOrchError, type TestOrchOptions, type TestOrchShape } from "./TestOrch.ts"
