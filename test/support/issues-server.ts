/** A local HTTP server answering GitHub's `GET /repos/{owner}/{repo}/issues/{n}` for the issues it is given. */
import * as Effect from "effect/Effect"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"

export interface FakeIssue {
  readonly title: string
  readonly body?: string
  readonly labels?: ReadonlyArray<string>
}

export const issuesServer = (repo: string, issues: Readonly<Record<string, FakeIssue>>) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly url: string; readonly requests: Array<{ path: string; headers: IncomingHttpHeaders }>; readonly close: () => void }>(
      (resume) => {
        const requests: Array<{ path: string; headers: IncomingHttpHeaders }> = []
        const server = createServer((req, res) => {
          requests.push({ path: req.url ?? "", headers: req.headers })
          const match = new RegExp(`^/repos/${repo}/issues/(\\d+)$`).exec(req.url ?? "")
          const issue = match ? issues[match[1]!] : undefined
          if (!match || issue === undefined) {
            res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ message: "Not Found" }))
            return
          }
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({
            number: Number(match[1]),
            title: issue.title,
            body: issue.body ?? null,
            labels: (issue.labels ?? []).map((name) => ({ name })),
            html_url: `https://github.com/${repo}/issues/${match[1]}`
          }))
        })
        server.listen(0, "127.0.0.1", () =>
          resume(Effect.succeed({
            url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
            requests,
            close: () => server.close()
          })))
      }
    ),
    (server) => Effect.sync(() => server.close())
  )
