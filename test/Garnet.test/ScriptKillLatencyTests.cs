// How soon a script stops after SCRIPT KILL answered OK, measured from that OK to the killed script's error reply,
// for scripts whose time goes to C# primitives rather than Lua instructions (the pattern matcher).
// Invariant: the bound (2 s) is far above the time a prompt kill takes (the next poll of the matcher, well under 10 ms)
// and far below the time the script runs on when the kill is missed (hours).
namespace Garnet.test;

[TestFixture]
public class ScriptKillLatencyTests : ServerFixture
{
    private static readonly string[] Scripts =
    [
        "return string.find(string.rep('a', 5000), ('a*'):rep(30) .. 'b')",
        "return string.match(string.rep('a', 5000), ('a-'):rep(30) .. 'b')",
        "return string.gsub(string.rep('a', 5000), ('(a*)'):rep(30) .. 'b', '%1')",
        // %b scans to the subject's end from every start: n^2 / 2 byte reads in a handful of match calls
        "return string.find(string.rep('(', 1000000), '%b()')",
        "return string.gsub(string.rep('(', 1000000), '%b()', 'x')",
    ];

    [TestCaseSource(nameof(Scripts)), CancelAfter(60000)]
    public void TheKilledScriptRepliesSoonAfterScriptKillsOk(string script)
    {
        using var c = _server.Client(30000);
        using var other = _server.Client(30000);
        c.Execute("CONFIG", "SET", "busy-reply-threshold", "1000");
        try
        {
            c.Send("EVAL", script, "0");
            Assert.That(Poll.Until(() => other.Execute("PING").Text?.StartsWith("BUSY") == true, TimeSpan.FromSeconds(20)), Is.True,
                "the script runs past busy-reply-threshold");
            RespAssert.Simple(other.Execute("SCRIPT", "KILL"), "OK");
            var sw = System.Diagnostics.Stopwatch.StartNew();
            var reply = c.Read();
            sw.Stop();
            Assert.That(reply.Text, Does.StartWith("ERR Script killed by user with SCRIPT KILL..."));
            Assert.That(sw.ElapsedMilliseconds, Is.LessThan(2000), "ms from SCRIPT KILL's OK to the killed script's reply");
            RespAssert.Simple(other.Execute("PING"), "PONG");
        }
        finally { other.Execute("CONFIG", "SET", "busy-reply-threshold", "5000"); }
    }
}
