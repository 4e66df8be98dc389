// redis.call / redis.pcall when the command's reply cannot be handed to the script (over lua-memory-limit here; nested
// too deep or too large take the same path): redis.pcall returns an error table {err = ...} as for any other error
// (before, the bare message string, which a script cannot tell from a reply), redis.call raises it, pcall catches it as
// its text. A script's command replies to the script, so client-output-buffer-limit does not apply to it (Redis's
// script client has none): the script gets the value and the client is not closed.
namespace Garnet.test;

[TestFixture]
public class ScriptCallFailureTests : ServerFixture
{
    [Test]
    public void AReplyTheScriptCannotTakeIsAnErrorTable()
    {
        using var c = _server.Client();
        var limit = c.Execute("CONFIG", "GET", "lua-memory-limit").Elements![1].Text!;
        c.Execute("SET", "scf:big", new string('x', 6_000_000));
        c.Execute("CONFIG", "SET", "lua-memory-limit", "4000000");
        try
        {
            var r = c.Execute("EVAL", "local r = redis.pcall('GET', KEYS[1]) return {type(r), type(r) == 'table' and r.err or r}", "1", "scf:big");
            Assert.That(r.Elements!.Select(e => e.Text), Is.EqualTo(new[] { "table", "ERR not enough memory" }));
            const string call = "local r = redis.call('GET', KEYS[1]) return 'unreached'";
            var raised = c.Execute("EVAL", call, "1", "scf:big");
            Assert.That(raised.IsError, Is.True);
            Assert.That(raised.Text, Does.StartWith("ERR not enough memory script: "));
            RespAssert.Bulk(c.Execute("EVAL", "local ok, e = pcall(redis.call, 'GET', KEYS[1]) return e", "1", "scf:big"), "ERR not enough memory");
        }
        finally { c.Execute("CONFIG", "SET", "lua-memory-limit", limit); }
    }

    [Test]
    public void AScriptsCommandHasNoClientOutputLimit()
    {
        using var c = _server.Client();
        var limit = c.Execute("CONFIG", "GET", "client-output-buffer-limit").Elements![1].Text!;
        c.Execute("SET", "scf:two", new string('y', 2_000_000));
        c.Execute("CONFIG", "SET", "client-output-buffer-limit", "normal 1mb 0 0");
        try
        {
            RespAssert.Integer(c.Execute("EVAL", "return #redis.pcall('GET', KEYS[1])", "1", "scf:two"), 2_000_000);
            RespAssert.Integer(c.Execute("EVAL", "return #redis.call('GET', KEYS[1])", "1", "scf:two"), 2_000_000);
            RespAssert.Simple(c.Execute("PING"), "PONG"); // the same connection: not closed
        }
        finally { c.Execute("CONFIG", "SET", "client-output-buffer-limit", limit); }
    }
}
