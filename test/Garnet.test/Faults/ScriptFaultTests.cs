// Hostile scripts against the real executable (docs/security.md): finalizers met by SCRIPT FLUSH / FUNCTION FLUSH used
// to abort the process ("no Lua runtime on this thread"), a looping finalizer froze it (no PING, no SCRIPT KILL, no
// SHUTDOWN), and a looping sort comparator ignored SCRIPT KILL. Now the process answers OK and goes on, and SCRIPT KILL
// and SHUTDOWN NOSAVE end such scripts.
using System.Diagnostics;
using Garnet.client;

namespace Garnet.test.Faults;

[TestFixture, Category("Faults"), NonParallelizable]
public class ScriptFaultTests
{
    private string _work = null!;

    [SetUp] public void MakeDir() => _work = Directory.CreateTempSubdirectory("garnet-scriptfault-").FullName;
    [TearDown] public void RemoveDir() { try { Directory.Delete(_work, true); } catch { } }

    private ServerProcess Start() => new($"--dir \"{Path.Combine(_work, "data")}\" --save \"\"", _work);

    [Test, CancelAfter(120_000)]
    public void FlushesWithPendingFinalizersAnswerOkAndTheProcessStays()
    {
        using var server = Start();
        using var c = server.Client();
        foreach (var body in new[] { "redis.call('set', 'gc_key', 'x')", "redis.log(redis.LOG_WARNING, 'gc')", "cjson.encode({1})" })
        {
            foreach (var flush in new[] { new[] { "SCRIPT", "FLUSH" }, new[] { "SCRIPT", "FLUSH", "ASYNC" } })
            {
                RespAssert.Integer(c.Execute("EVAL", $"setmetatable({{}}, {{__gc = function() {body} end}}) return 1", "0"), 1);
                RespAssert.Simple(c.Execute(flush), "OK");
            }
            c.Execute("FUNCTION", "LOAD", "REPLACE", $"#!lua name=gclib\nsetmetatable({{}}, {{__gc = function() {body} end}})\nredis.register_function('gcf', function() return 1 end)");
            RespAssert.Simple(c.Execute("FUNCTION", "FLUSH"), "OK");
        }
        RespAssert.Simple(c.Execute("PING"), "PONG");
        RespAssert.Integer(c.Execute("EXISTS", "gc_key"), 0);
        Assert.That(server.HasExited, Is.False, server.Output);
        Assert.That(server.Output, Does.Not.Contain("Unhandled exception"));
    }

    [Test, CancelAfter(120_000)]
    public void HostileLoopsAreKilledAndShutdownNosaveEndsOne()
    {
        using var server = Start();
        using var c = server.Client(30_000);
        using var other = server.Client(30_000);
        c.Execute("CONFIG", "SET", "busy-reply-threshold", "200");
        // A finalizer that loops: never run, the script returns and the server answers.
        var sw = Stopwatch.StartNew();
        RespAssert.Integer(c.Execute("EVAL", "setmetatable({}, {__gc = function() while true do end end}) collectgarbage() return 1", "0"), 1);
        RespAssert.Simple(other.Execute("PING"), "PONG");
        Assert.That(sw.Elapsed, Is.LessThan(TimeSpan.FromSeconds(10)));
        // A sort comparator that loops: SCRIPT KILL ends it; PING is answered BUSY meanwhile and PONG afterwards.
        c.Send("EVAL", "table.sort({3, 2, 1, 4, 5}, function(a, b) while true do end end)", "0");
        Poll.True(() => other.Execute("PING").IsError, "PING answered BUSY (the script runs past busy-reply-threshold)");
        RespAssert.Error(other.Execute("PING"), "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.");
        RespAssert.Simple(other.Execute("SCRIPT", "KILL"), "OK");
        Assert.That(c.Read().Text, Does.StartWith("ERR Script killed by user with SCRIPT KILL..."));
        using (var third = server.Client(5000)) RespAssert.Simple(third.Execute("PING"), "PONG");
        // One that wrote first cannot be killed; SHUTDOWN NOSAVE still ends the process.
        c.Send("EVAL", "redis.call('set', 'w', '1') table.sort({3, 2, 1, 4, 5}, function(a, b) while true do end end)", "0");
        Poll.True(() => other.Execute("PING").IsError, "PING answered BUSY (the script wrote, then loops)");
        Assert.That(other.Execute("SCRIPT", "KILL").Text, Does.StartWith("UNKILLABLE"));
        sw.Restart();
        other.Send("SHUTDOWN", "NOSAVE");
        Assert.That(server.WaitForExit(TimeSpan.FromSeconds(30)), Is.True, "SHUTDOWN NOSAVE ended the process: " + server.Output);
        TestContext.Out.WriteLine($"SHUTDOWN NOSAVE during an unkillable comparator loop: exited after {sw.ElapsedMilliseconds} ms");
        Assert.That(server.Output, Does.Not.Contain("Unhandled exception"));
    }
}
