/** The dashboard page: sessions grouped by what they need, updated live from the event stream. */
export const renderPage = (): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>orch</title>
<style>
:root { color-scheme: light dark; --fg: #1b1f24; --muted: #5b6470; --bg: #f7f8fa; --card: #fff; --line: #e2e5ea; --accent: #2563eb; --warn: #b45309; --bad: #b91c1c; --ok: #15803d }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e8eb; --muted: #9aa3ad; --bg: #0f1216; --card: #171b21; --line: #262c34 } }
body { margin: 0; font: 15px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg) }
header { display: flex; gap: 1rem; align-items: baseline; padding: 1rem 1.25rem; border-bottom: 1px solid var(--line) }
h1 { font-size: 1.25rem; margin: 0 } #live { color: var(--muted); font-size: .85rem }
main { display: grid; gap: 1rem; padding: 1.25rem; grid-template-columns: repeat(auto-fit, minmax(16rem, 1fr)) }
section h2 { font-size: .8rem; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); margin: 0 0 .5rem }
.card { background: var(--card); border: 1px solid var(--line); border-radius: .5rem; padding: .6rem .8rem; margin-bottom: .5rem }
.card b { font-family: ui-monospace, monospace } .meta { color: var(--muted); font-size: .85rem }
.s-needs b { color: var(--bad) } .s-review b { color: var(--accent) } .s-done b { color: var(--ok) }
</style></head>
<body>
<header><h1>orch</h1><span id="live">connecting…</span></header>
<main id="board"></main>
<script>
const groups = [["needs", "Needs you", ["needs_input", "stuck", "errored"]], ["review", "Review and merge", ["approved", "mergeable", "changes_requested", "ci_failed", "review_pending", "pr_open"]], ["working", "Working", ["spawning", "working", "ready", "idle"]], ["done", "Done", ["merged", "done", "killed"]]]
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c])
async function refresh() {
  const sessions = await (await fetch("/api/sessions")).json()
  document.getElementById("board").innerHTML = groups.map(([key, title, statuses]) => {
    const mine = sessions.filter((s) => statuses.includes(s.status))
    return '<section class="s-' + key + '"><h2>' + title + " (" + mine.length + ")</h2>" + mine.map((s) =>
      '<div class="card" data-session="' + esc(s.sessionId) + '"><b>' + esc(s.sessionId) + "</b> " + esc(s.issue ? s.issue.title : "issue " + s.issueId) +
      '<div class="meta">' + esc(s.status) + " · " + esc(s.activity) + " · " + esc(s.branch) + (s.pr ? " · PR #" + s.pr.number + " " + esc(s.pr.state) : "") + "</div></div>").join("") + "</section>"
  }).join("")
}
const source = new EventSource("/api/events")
source.onopen = () => { document.getElementById("live").textContent = "live"; refresh() }
source.onerror = () => { document.getElementById("live").textContent = "disconnected, reconnecting…" }
source.onmessage = refresh
for (const type of ["session.spawned", "session.working", "session.ready", "session.idle", "session.stuck", "session.needs_input", "session.exited", "session.killed", "session.cleaned", "session.restored", "pr.created", "ci.failed", "ci.passed", "review.approved", "review.changes_requested", "pr.merged", "pr.closed"]) source.addEventListener(type, refresh)
</script></body></html>
`
