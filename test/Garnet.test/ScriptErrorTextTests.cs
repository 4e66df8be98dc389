// Script errors side by side with Debian's redis-server (7.0.15; these texts are the same in Redis 7.2): every script
// gets the same reply bytes from both servers. Most return a library call directly (`return f(...)`): Redis's library
// functions are C, and a tail call to one keeps the script's frame, so the error carries "user_script:N:" and the
// " script: <sha>, on @user_script:N." trailer; ours are Lua wrappers, kept from being tail calls by TailCalls. Also:
// the redis.* functions raise error tables (no position) or return them (error_reply, status_reply), and pcall catches
// a table error as its err text, as Redis 7 does. Ignored (not passed) when redis-server is missing.
namespace Garnet.test;

[TestFixture]
public class ScriptErrorTextTests : RedisSideBySide
{
    private static readonly string[] Scripts =
    [
        // pattern errors and argument errors of the string wrappers, tail-called, in a method call, nested, on line 3
        "return string.find('abc', '[')",
        "return string.match('abc', '(')",
        "return string.gsub('abc', '%', 'x')",
        "return string.gmatch(1)",
        "return ('abc'):find('[')",
        "local s = 'abc' return s:find('[')",
        "local t = {} t.x = function() return string.find('abc', '[') end return t.x()",
        "local a = 1\nlocal b = 2\nreturn string.find('abc', '%f')",
        "if true then return string.find('abc', '[') end return 1",
        "return string.find('abc', '[');",
        // codecs
        "return cjson.decode('{')",
        "return cjson.encode(function() end)",
        "return cmsgpack.unpack('\\196')",
        "return cmsgpack.pack()",
        "return struct.pack('>i', 'x')",
        "return struct.unpack('i', '')",
        "return bit.band('x')",
        "return bit.tohex(1, {})",
        "local x = bit.bor(1, nil) return x",
        // redis.*: raised tables (no position, the trailer), or returned ones
        "return redis.sha1hex()",
        "return redis.log(1)",
        "return redis.log('x', 'y')",
        "return redis.log(9, 'y')",
        "return redis.setresp(4)",
        "return redis.setresp()",
        "return redis.set_repl(9)",
        "return redis.acl_check_cmd()",
        "return redis.acl_check_cmd('nosuch')",
        "local x = redis.log(1) return x",
        "local x = redis.error_reply(1) return x",
        "return redis.error_reply('oops')",
        "return redis.error_reply('-oops')",
        "return redis.error_reply('My Error')",
        "return redis.error_reply('')",
        "return redis.status_reply(5)",
        "return redis.call('nosuch')",
        // pcall catches a table error as its err text
        "local ok, e = pcall(redis.call, 'nosuch') return e",
        "local ok, e = pcall(redis.log, 1) return e",
        "local ok, e = pcall(error, {err = 5}) return e",
        "local ok, e = pcall(error, {}) return type(e)",
        // the sandbox's wrappers of raw functions
        "return setmetatable(1, {})",
        "return rawset(1)",
        "return rawget({})",
        "return next(1)",
        // what must not change: results of tail calls, a user function's tail recursion
        "return string.find('hello', '(l)(l)')",
        "return {(function() return string.gsub('hello', 'l', 'L') end)()}",
        "local function f(n) if n == 0 then return 'done' end return f(n - 1) end return f(1000000)",
        "return redis.sha1hex(nil)",
        "return redis.setresp('2')",
    ];

    [TestCaseSource(nameof(Scripts))]
    public void SameReplyAsRedis(string script)
    {
        using var ours = new RawResp(_ours!.Port);
        using var redis = new RawResp(_redis!.Port);
        string expected = System.Text.Encoding.UTF8.GetString(redis.Run("EVAL", script, "0"));
        string actual = System.Text.Encoding.UTF8.GetString(ours.Run("EVAL", script, "0"));
        Assert.That(actual, Is.EqualTo(expected), script);
    }
}
