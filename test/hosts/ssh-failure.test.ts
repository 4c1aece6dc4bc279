import { assert, describe, it } from "@effect/vitest"
import { classifySshFailure, describeSshFailure } from "../../src/hosts/ssh-failure.ts"

// ssh 9.2p1's own stderr, captured against a real sshd (see test/support/ssh-hosts.ts).
const CHANGED = `@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@
@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @
@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@
IT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!
Someone could be eavesdropping on you right now (man-in-the-middle attack)!
It is also possible that a host key has just been changed.
The fingerprint for the ED25519 key sent by the remote host is
SHA256:o9HIZhHq0venuEZaQdjA0KWzYuir9nWGHrPdnWcQk9I.
Please contact your system administrator.
Add correct host key in /tmp/samp-nCpE/kh_bad to get rid of this message.
Offending ED25519 key in /tmp/samp-nCpE/kh_bad:1
  remove with:
  ssh-keygen -f "/tmp/samp-nCpE/kh_bad" -R "[127.0.0.88]:2288"
Host key for [127.0.0.88]:2288 has changed and you have requested strict checking.
Host key verification failed.
`

describe("classifySshFailure (ssh's stderr → what went wrong)", () => {
  const table: ReadonlyArray<readonly [string, string, string, string]> = [
    ["a changed host key names the offending entry", CHANGED, "host-key-changed", "Offending ED25519 key in /tmp/samp-nCpE/kh_bad:1"],
    ["an unknown host key (BatchMode: no prompt)", "Host key verification failed.\n", "host-key-unknown", "Host key verification failed."],
    ["a refused key", "orchs4463@127.0.0.88: Permission denied (publickey).\n", "key-refused", "orchs4463@127.0.0.88: Permission denied (publickey)."],
    [
      "a refused key because the identityFile is missing: the missing file is the reason",
      "Warning: Identity file /home/me/.ssh/id_nope not accessible: No such file or directory.\norchhost1@127.0.0.5: Permission denied (publickey).\n",
      "key-refused",
      "Warning: Identity file /home/me/.ssh/id_nope not accessible: No such file or directory."
    ],
    [
      "sshd not running",
      "ssh: connect to host 127.0.0.9 port 2289: Connection refused\n",
      "connection-refused",
      "ssh: connect to host 127.0.0.9 port 2289: Connection refused"
    ],
    [
      "a frozen sshd",
      "Connection timed out during banner exchange\nConnection to 127.0.0.88 port 2288 timed out\n",
      "timed-out",
      "Connection timed out during banner exchange"
    ],
    ["no route", "ssh: connect to host 10.9.9.9 port 22: No route to host\n", "unreachable", "ssh: connect to host 10.9.9.9 port 22: No route to host"],
    [
      "an unknown name",
      "ssh: Could not resolve hostname nohost: Name or service not known\n",
      "unreachable",
      "ssh: Could not resolve hostname nohost: Name or service not known"
    ],
    [
      "no master and no connection of its own (ProxyCommand=false)",
      "kex_exchange_identification: Connection closed by remote host\nConnection closed by UNKNOWN port 65535\n",
      "connection-lost",
      "kex_exchange_identification: Connection closed by remote host"
    ],
    ["keep-alives gave up", "Timeout, server 127.0.0.5 not responding.\n", "connection-lost", "Timeout, server 127.0.0.5 not responding."],
    ["anything else: its last line", "something odd\nreally odd\n", "other", "really odd"],
    ["nothing said", "", "other", "ssh failed and said nothing"]
  ]
  for (const [name, stderr, problem, detail] of table) {
    it(name, () => assert.deepStrictEqual(classifySshFailure(stderr), { problem, detail } as never))
  }
})

describe("describeSshFailure (what happened, what to do)", () => {
  it("a missing identityFile is named, not taken for a refused key", () =>
    assert.strictEqual(
      describeSshFailure(classifySshFailure(
        "Warning: Identity file /home/me/.ssh/id_nope not accessible: No such file or directory.\norchhost1@127.0.0.5: Permission denied (publickey).\n"
      )),
      "was offered no key: Identity file /home/me/.ssh/id_nope not accessible: No such file or directory; fix the host's identityFile"
    ))
})
