// FLUSHALL empties the store at once (the log restarts, its segment files go): what a restart brings back must agree with
// the AOF and the checkpoints, including after SIGKILL, and a checkpoint being written when the store is flushed is never
// published half full.
using Garnet.client;
using Garnet.test.Faults;

namespace Garnet.test;

[TestFixture]
public class FlushDurabilityTests
{
    private string _work = null!;

    [SetUp] public void NewDir() => _work = Directory.CreateTempSubdirectory("garnet-flushdur-").FullName;
    [TearDown] public void RemoveDir() { try { Directory.Delete(_work, true); } catch { } }

    /// <summary>Pipelined SETs of prefix0..prefix(keys-1); with a small budget most of them end up on disk.</summary>
    private static void Load(RespClient c, string prefix, int keys)
    {
        const int inFlight = 64;
        for (int i = 0; i < keys; i++)
        {
            c.Send("SET", prefix + i, "value-" + i + "-" + new string('p', 40));
            if (i >= inFlight) RespAssert.Simple(c.Read(), "OK");
        }
        for (int i = Math.Max(0, keys - inFlight); i < keys; i++) RespAssert.Simple(c.Read(), "OK");
    }

    private ServerProcess Start(string args) => new($"--dir \"{Path.Combine(_work, "data")}\" --memory 16mb --loglevel warning {args}", _work);

    private static void Sigkill(ServerProcess server)
    {
        server.Signal("KILL");
        Assert.That(server.WaitForExit(TimeSpan.FromSeconds(30)), Is.True);
    }

    [Test, CancelAfter(120_000)]
    public void AfterFlushallAndSigkillTheAofReplayBringsBackOnlyLaterKeys()
    {
        const string args = "--aof --aof-fsync always --save \"\"";
        using (var server = Start(args))
        using (var c = server.Client(60_000))
        {
            Load(c, "old:", 100_000);
            RespAssert.Simple(c.Execute("SELECT", "2"), "OK");
            RespAssert.Simple(c.Execute("SET", "old-in-2", "x"), "OK");
            RespAssert.Simple(c.Execute("FLUSHALL"), "OK");
            RespAssert.Simple(c.Execute("SET", "new", "after the flush"), "OK");
            Sigkill(server);
        }
        using (var server = Start(args))
        using (var c = server.Client(60_000))
        {
            RespAssert.Integer(c.Execute("DBSIZE"), 0);
            RespAssert.Simple(c.Execute("SELECT", "2"), "OK");
            Assert.That(c.Execute("GET", "new").Text, Is.EqualTo("after the flush"));
            RespAssert.Integer(c.Execute("DBSIZE"), 1);
            RespAssert.Simple(c.Execute("SELECT", "0"), "OK");
            RespAssert.Integer(c.Execute("EXISTS", "old:0", "old:50000", "old:99999"), 0);
        }
    }

    [Test, CancelAfter(120_000)]
    public void ACheckpointAfterFlushallIsEmptyAndARestartAfterSigkillLoadsIt()
    {
        const string args = "--save \"\"";
        using (var server = Start(args))
        using (var c = server.Client(60_000))
        {
            Load(c, "old:", 100_000);
            RespAssert.Simple(c.Execute("SAVE"), "OK"); // a checkpoint with every old key
            RespAssert.Simple(c.Execute("FLUSHALL"), "OK");
            RespAssert.Simple(c.Execute("SAVE"), "OK"); // of the emptied store
            Assert.That(c.Execute("INFO", "persistence").Text, Does.Contain("checkpoint_last_keys:0\r\n"), "the second checkpoint holds no key");
            Sigkill(server);
        }
        using (var server = Start(args))
        using (var c = server.Client(60_000))
        {
            RespAssert.Integer(c.Execute("DBSIZE"), 0);
            RespAssert.Integer(c.Execute("EXISTS", "old:0", "old:99999"), 0);
        }
    }

    [Test, CancelAfter(120_000)]
    public void ACheckpointOvertakenByFlushallIsDroppedAndTakenAgain()
    {
        const int keys = 300_000;
        using (var server = new TestServer(o => o.Memory = "16mb", Path.Combine(_work, "inproc")))
        using (var c = server.Client(60_000))
        {
            Load(c, "old:", keys); // mostly on disk: writing the checkpoint reads them back, which takes a while
            var checkpoints = server.Server.Server.Checkpoints;
            RespAssert.Simple(c.Execute("BGSAVE"), "Background saving started");
            Assert.That(Poll.Until(() => checkpoints.InProgress, TimeSpan.FromSeconds(10)), Is.True);
            Thread.Sleep(20); // past its cut, into the file
            RespAssert.Simple(c.Execute("FLUSHALL"), "OK");
            RespAssert.Simple(c.Execute("SET", "new", "after the flush"), "OK");
            Assert.That(Poll.Until(() => !checkpoints.InProgress, TimeSpan.FromSeconds(60)), Is.True);
            Assert.That(checkpoints.LastSaveOk, Is.True, "an overtaken checkpoint is not a failure");
            TestContext.Out.WriteLine($"checkpoint retaken {checkpoints.Retaken} time(s); {checkpoints.LastKeys} keys in the file");
            Assert.That(checkpoints.Retaken, Is.EqualTo(1), "the flush overtook the checkpoint being written");
            Assert.That(checkpoints.LastKeys, Is.InRange(0, 1), "the file holds the state after the flush, not part of the old keys");
            server.Server.Server.SaveOnStop = false;
        }
        using (var server = new TestServer(o => o.Memory = "16mb", Path.Combine(_work, "inproc")))
        using (var c = server.Client(60_000))
        {
            Assert.That(c.Execute("DBSIZE").Integer, Is.InRange(0, 1), "no old key came back");
            RespAssert.Integer(c.Execute("EXISTS", "old:0", "old:150000", $"old:{keys - 1}"), 0);
        }
    }
}
