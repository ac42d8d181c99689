import Foundation
import TestSupport
import Testing

/// MPD's client-to-client messages (`subscribe`, `unsubscribe`, `channels`, `sendmessage`, `readmessages`) between
/// three python-mpd2 clients of the real `fermatad`: `idle` woken by `subscription` (everyone) and `message` (only
/// the listener), MPD's refusals word for word, its bounds (16 channels, 64 unread messages per client), and a
/// client's channels gone when it leaves. The same script passes against MPD 0.23.12.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct MessagesE2ETests {
    /// After `PythonMPDTests.helpers`.
    static let script = #"""
        a, b, watcher = client(), client(), client()

        step = "subscribe wakes idle subscription"
        # A change made before the watcher is in `idle` is kept for it: no need to wait for the thread to get there.
        seen = []
        thread = threading.Thread(target=lambda: seen.extend(watcher.idle("subscription")))
        thread.start()
        a.subscribe("practice:tempo")
        thread.join(20)
        check(seen == ["subscription"], seen)
        check(b.channels() == ["practice:tempo"], b.channels())

        step = "a message wakes only its listener"
        seen = []
        thread = threading.Thread(target=lambda: seen.extend(a.idle("message")))
        thread.start()
        b.sendmessage("practice:tempo", "slower please")
        thread.join(20)
        check(seen == ["message"], seen)
        got = a.readmessages()
        check(got == [{"channel": "practice:tempo", "message": "slower please"}], got)
        check(a.readmessages() == [], "read once")

        step = "refusals"
        check(ack(b.sendmessage, "nobody", "x") == "[50@0] {sendmessage} nobody is subscribed to this channel",
              ack(b.sendmessage, "nobody", "x"))
        check(ack(a.subscribe, "bad name!") == "[2@0] {subscribe} invalid channel name", ack(a.subscribe, "bad name!"))
        check(ack(b.sendmessage, "bad/name", "x") == "[2@0] {sendmessage} invalid channel name", "send to a bad name")
        check(ack(a.subscribe, "practice:tempo") == "[56@0] {subscribe} already subscribed to this channel", "twice")
        check(ack(a.unsubscribe, "never") == "[50@0] {unsubscribe} not subscribed to this channel", "unsubscribe")
        for i in range(15):
            a.subscribe("c%d" % i)
        check(ack(a.subscribe, "one-too-many") == "[56@0] {subscribe} subscription list is full", "17th")
        check(len(b.channels()) == 16, b.channels())

        step = "an unread mailbox holds 64"
        for i in range(64):
            b.sendmessage("c3", "m%d" % i)
        check(ack(b.sendmessage, "c3", "m64") == "[50@0] {sendmessage} nobody is subscribed to this channel",
              "a full mailbox takes no more (MPD's words)")
        got = a.readmessages()
        check([m["message"] for m in got] == ["m%d" % i for i in range(64)], len(got))

        step = "unsubscribe and leave"
        a.unsubscribe("c3")
        check("c3" not in b.channels(), b.channels())
        a.disconnect()
        deadline = time.monotonic() + 120  # the server sees the connection go a moment later (a hang detector)
        while b.channels() and time.monotonic() < deadline:
            time.sleep(0.01)
        check(b.channels() == [], b.channels())
        b.disconnect()
        watcher.disconnect()
        print("PASS messages")
        """#

    @Test(.enabled(if: PythonMPDTests.hasPythonMPD, "needs /usr/bin/python3 with python3-mpd"))
    func clientsTalkThroughChannelsAsWithMPD() async throws {
        try await Daemon.with { daemon async throws in
            try await PythonMPDTests.run(Self.script, port: daemon.port, expecting: "PASS messages")
        }
    }
}
