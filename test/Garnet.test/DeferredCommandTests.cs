// Commands whose work runs off the connection's thread (SAVE, COMPACT, FLUSHALL/FLUSHDB SYNC, SHUTDOWN's save): their reply
// comes when the work is done, later commands of the same client wait for it, other clients are served meanwhile.
using Garnet.client;
using Garnet.server.Storage;

namespace Garnet.test;

[TestFixture]
public class DeferredCommandTests
{
    [Test, CancelAfter(60_000)]
    public void SaveRepliesWhenDoneWhileOtherClientsAreServedAndLaterCommandsWait()
    {
        using var server = new TestServer();
        using var c = server.Client();
        c.Execute("SET", "k", "v");
        var locks = server.Server.Server.Store.Locks;
        int stripe = KeyLocks.StripeOf("held"u8);
        locks.Enter(stripe, KeyLockMode.Exclusive); // the checkpoint's cut waits for it
        try
        {
            c.Send("SAVE");
            c.Send("PING");
            using var other = server.Client(2000);
            for (int i = 0; i < 20; i++) RespAssert.Simple(other.Execute("PING"), "PONG");
            Assert.That(c.Socket.Poll(500_000, System.Net.Sockets.SelectMode.SelectRead), Is.False, "no reply before the save is done, not even to the later PING");
        }
        finally { locks.Exit(stripe, KeyLockMode.Exclusive); }
        RespAssert.Simple(c.Read(), "OK");
        RespAssert.Simple(c.Read(), "PONG");
        Assert.That(File.Exists(Path.Combine(server.Dir, "checkpoint.1.rdb")));
    }

    [Test, CancelAfter(60_000)]
    public void FlushAllSyncAndCompactReply()
    {
        using var server = new TestServer();
        using var c = server.Client();
        for (int i = 0; i < 100; i++) c.Execute("SET", "k" + i, "v");
        c.Send("FLUSHALL", "SYNC");
        c.Send("DBSIZE");
        RespAssert.Simple(c.Read(), "OK");
        RespAssert.Integer(c.Read(), 0);
        c.Send("COMPACT");
        c.Send("PING");
        Assert.That(c.Read().Type, Is.EqualTo(RespType.Integer));
        RespAssert.Simple(c.Read(), "PONG");
    }

    [Test, CancelAfter(60_000)]
    public void ShutdownSaveFailureIsAnsweredAndTheServerGoesOn()
    {
        using var server = new TestServer(o => o.Save = "3600 1");
        using var c = server.Client();
        c.Execute("SET", "k", "v");
        // A directory where the checkpoint file must go makes the save fail.
        for (int n = 1; n <= 20; n++) Directory.CreateDirectory(Path.Combine(server.Dir, $"checkpoint.{n}.rdb.tmp"));
        RespAssert.Error(c.Execute("SHUTDOWN"), "ERR Errors trying to SHUTDOWN. Check logs.");
        RespAssert.Simple(c.Execute("PING"), "PONG");
        // stop-writes-on-bgsave-error: with save rules, a failed checkpoint refuses writes (reads go on).
        Assert.That(c.Execute("SET", "k2", "v").Text, Does.StartWith("MISCONF"));
        RespAssert.Bulk(c.Execute("GET", "k"), "v");
        // TryStop (as on SIGTERM) does not stop while the checkpoint fails; the server serves again.
        Assert.That(server.Server.TryStop(TimeSpan.FromSeconds(1)), Is.False);
        using var again = server.Client();
        RespAssert.Bulk(again.Execute("GET", "k"), "v");
    }
}
