import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { type AddressInfo, createServer, type Socket } from "node:net"
import { SMTPServer } from "smtp-server"
import type { Notification } from "../../../src/domain/notification.ts"
import { makeEmailNotifier } from "../../../src/plugins/notifier/email.ts"

const USER = "orch"
const PASSWORD = "p@ss w0rd/s3cret"
const smtpUrl = (port: number, password = PASSWORD) => `smtp://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}`

interface Mail {
  readonly from: string
  readonly to: ReadonlyArray<string>
  readonly raw: string
}

/**
 * A real SMTP server on 127.0.0.1 (plain text, AUTH PLAIN/LOGIN with USER and PASSWORD) that keeps what it receives
 * and refuses the recipients in `refuse` (550, as for an unknown mailbox).
 */
const smtpServerRefusing = (refuse: ReadonlyArray<string>) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly port: number; readonly mails: Array<Mail>; readonly server: SMTPServer }>((resume) => {
      const mails: Array<Mail> = []
      const server = new SMTPServer({
        secure: false,
        disabledCommands: ["STARTTLS"],
        allowInsecureAuth: true,
        logger: false,
        onAuth: (auth, _session, callback) =>
          auth.username === USER && auth.password === PASSWORD
            ? callback(null, { user: USER })
            : callback(new Error("Invalid username or password")),
        onRcptTo: (address, _session, callback) =>
          refuse.includes(address.address)
            ? callback(Object.assign(new Error(`<${address.address}>: mailbox unavailable`), { responseCode: 550 }))
            : callback(),
        onData: (stream, session, callback) => {
          let raw = ""
          stream.on("data", (chunk: Buffer) => (raw += chunk.toString("utf8")))
          stream.on("end", () => {
            const from = session.envelope.mailFrom
            mails.push({ from: from === false ? "" : from.address, to: session.envelope.rcptTo.map((r) => r.address), raw })
            callback()
          })
        }
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ port: (server.server.address() as AddressInfo).port, mails, server })))
    }),
    ({ server }) => Effect.callback<void>((resume) => server.close(() => resume(Effect.void)))
  )
const smtpServer = smtpServerRefusing([])

/** A TCP server that accepts connections and never says a word. */
const silentServer = Effect.acquireRelease(
  Effect.callback<{ readonly port: number; readonly close: () => void }>((resume) => {
    const sockets: Array<Socket> = []
    const server = createServer((socket) => void sockets.push(socket))
    server.listen(0, "127.0.0.1", () =>
      resume(Effect.succeed({
        port: (server.address() as AddressInfo).port,
        close: () => {
          sockets.forEach((s) => s.destroy())
          server.close()
        }
      })))
  }),
  (server) => Effect.sync(() => server.close())
)

/** A port nothing listens on. */
const closedPort = Effect.callback<number>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const port = (server.address() as AddressInfo).port
    server.close(() => resume(Effect.succeed(port)))
  })
})

/** The decoded text of a received mail: headers unfolded, quoted-printable undone. */
const decode = (raw: string) => {
  const [head = "", ...rest] = raw.split("\r\n\r\n")
  const headers = head.replace(/\r\n[ \t]+/g, " ")
  let body = rest.join("\r\n\r\n")
  if (/content-transfer-encoding: quoted-printable/i.test(headers)) {
    body = Buffer.from(
      body.replace(/=\r\n/g, "").replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      "latin1"
    ).toString("utf8")
  }
  return { subject: /^subject: (.*)$/im.exec(headers)?.[1] ?? "", body: body.replace(/\r\n/g, "\n") }
}

const notification: Notification = {
  id: "n-1",
  type: "reaction.escalated",
  priority: "urgent",
  title: "app-1 is stuck",
  message: "CI failed 3 times on app-1; it needs you.",
  timestamp: "2026-05-01T10:00:00.000Z",
  sessionId: "app-1",
  projectId: "app",
  prUrl: "https://github.com/acme/app/pull/7",
  actions: [{ label: "Open PR", url: "https://github.com/acme/app/pull/7" }]
}

const config = (smtp: string) => ({ plugin: "email", smtp, from: "orch@example.com", to: ["me@example.com", "you@example.com"] })

describe("notifier email (real SMTP server)", () => {
  it.live("delivers notify, notifyWithActions and post with subject, body and links", () =>
    Effect.gen(function*() {
      const server = yield* smtpServer
      const email = yield* makeEmailNotifier("mail", config(smtpUrl(server.port)))
      yield* email.notify(notification)
      yield* email.notifyWithActions(notification, [
        { label: "Merge", callbackEndpoint: "http://127.0.0.1:3000/api/sessions/app-1/merge" },
        { label: "Open PR", url: "https://github.com/acme/app/pull/7" }
      ])
      yield* email.post("Status: 3 sessions working\nmore lines", { projectId: "app" })

      assert.strictEqual(server.mails.length, 3)
      assert.strictEqual(server.mails[0]!.from, "orch@example.com")
      assert.deepStrictEqual(server.mails[0]!.to, ["me@example.com", "you@example.com"])
      const first = decode(server.mails[0]!.raw)
      assert.strictEqual(first.subject, "[orch] URGENT app-1 is stuck")
      assert.include(first.body, "CI failed 3 times on app-1; it needs you.")
      assert.include(first.body, "Session: app-1\nProject: app\nPull request: https://github.com/acme/app/pull/7")
      assert.include(first.body, "Actions:\n- Open PR: https://github.com/acme/app/pull/7")
      assert.include(decode(server.mails[1]!.raw).body, "- Merge: POST http://127.0.0.1:3000/api/sessions/app-1/merge\n- Open PR:")
      const posted = decode(server.mails[2]!.raw)
      assert.strictEqual(posted.subject, "[orch] Status: 3 sessions working")
      assert.include(posted.body, "Status: 3 sessions working\nmore lines\n\nProject: app")
    }))

  it.live("a recipient the server refuses is a failed delivery, even when the others got the mail", () =>
    Effect.gen(function*() {
      const server = yield* smtpServerRefusing(["you@example.com"])
      const email = yield* makeEmailNotifier("mail", config(smtpUrl(server.port)))
      const error = yield* Effect.flip(email.notify(notification))
      assert.strictEqual(
        error.message,
        `notifier mail: smtp://orch@127.0.0.1:${server.port} refused you@example.com (sent to 1 other); check the addresses in \`to\``
      )
      assert.deepStrictEqual(server.mails.map((m) => m.to), [["me@example.com"]])
    }))

  it.live("a wrong password fails with the server's answer, never the password", () =>
    Effect.gen(function*() {
      const server = yield* smtpServer
      const wrong = "Wr0ng p@ss!"
      const email = yield* makeEmailNotifier("mail", config(smtpUrl(server.port, wrong)))
      const error = yield* Effect.flip(email.notify(notification))
      assert.strictEqual(error._tag, "NotifierError")
      assert.include(error.message, `notifier mail: cannot send through smtp://orch@127.0.0.1:${server.port}`)
      assert.match(error.reason, /Invalid login|535/)
      for (const secret of [wrong, encodeURIComponent(wrong), PASSWORD]) assert.notInclude(error.message, secret)
      assert.strictEqual(server.mails.length, 0)
    }))

  it.live("an unreachable or silent server fails in time, without the password", () =>
    Effect.gen(function*() {
      const port = yield* closedPort
      const refused = yield* Effect.flip((yield* makeEmailNotifier("mail", config(smtpUrl(port)))).notify(notification))
      assert.include(refused.reason, "ECONNREFUSED")
      assert.notInclude(refused.reason, "s3cret")

      const silent = yield* silentServer
      const email = yield* makeEmailNotifier("mail", config(smtpUrl(silent.port)), { timeout: "300 millis" })
      const started = Date.now()
      const timedOut = yield* Effect.flip(email.notify(notification))
      assert.isBelow(Date.now() - started, 3_000)
      assert.strictEqual(timedOut.reason, `sending through smtp://orch@127.0.0.1:${silent.port} timed out after 300ms`)
    }))

  it.effect.each(
    [
      [{ to: "me@example.com" }, "smtp is required: smtp://USER:PASSWORD@HOST:PORT"],
      [{ smtp: "http://orch:hunter2@mail.example.com", from: "orch@example.com", to: "me@example.com" }, "smtp must start with smtp:// or smtps://"],
      [{ smtp: "smtp://orch:hunter2@", from: "orch@example.com", to: "me@example.com" }, "smtp is not a valid URL"],
      [{ smtp: "smtp://orch@mail.example.com", from: "orch@example.com", to: "me@example.com" }, "smtp needs both a user and a password"],
      [{ smtp: "smtp://orch:hunter2@mail.example.com", to: "me@example.com" }, "from must be an email address"],
      [{ smtp: "smtp://orch:hunter2@mail.example.com", from: "orch@example.com", to: [] }, "to must be an email address or a non-empty list"],
      [{ smtp: "smtp://orch:hunter2@mail.example.com", from: "orch@example.com", to: ["me@example.com", "nobody"] }, "to must be an email address"]
    ] as const
  )("rejects bad settings at creation: %o", ([settings, expected]) =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(makeEmailNotifier("mail", { plugin: "email", ...settings }))
      assert.strictEqual(error._tag, "NotifierConfigError")
      assert.include(error.message, `notifier mail: ${expected}`)
      assert.notInclude(error.message, "hunter2")
    }))
})
