// cmsgpack.unpack_one / unpack_limit side by side with Debian's redis-server (7.0.15, whose lua_cmsgpack.c is Redis
// 7.2's): offsets (the next one first, -1 at the end), limits, limit and offset 0 (plain unpack, no offset), negative or
// past-the-end values (lua-cmsgpack's texts, including its quirk of printing the input's length as the limit), Lua 5.1's
// reading of the integer arguments (truncated, numeric strings), truncated and bad input, and a loop that walks a
// stream value by value. Every reply must be the same bytes. Ignored (not passed) when redis-server is missing.
namespace Garnet.test;

[TestFixture]
public class ScriptMsgPackCompatTests : RedisSideBySide
{
    private static readonly string[] Scripts =
    [
        "return {cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3))}",
        "return {cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3), 1)}",
        "return {cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3), 2)}",
        "return {cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3), 3)}",
        "return {cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3), 5)}",
        "return {cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3), -1)}",
        "return {cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3), nil)}",
        "return {cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3), '1')}",
        "return {cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3), 1.5)}",
        "return {cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3), 'x')}",
        "return {cmsgpack.unpack_one(cmsgpack.pack('abc', {1, 2}), 0)}",
        "return {cmsgpack.unpack_one('')}",
        "return {cmsgpack.unpack_one(123)}",
        "return {cmsgpack.unpack_one({})}",
        "return {cmsgpack.unpack_one('\\196')}",
        "return cmsgpack.unpack_one()",
        "return cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3))",
        "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 2)}",
        "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 0)}",
        "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 0, 1)}",
        "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 0, 3)}",
        "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), -1)}",
        "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 1, -1)}",
        "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 2, 2)}",
        "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 1, 1)}",
        "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 5)}",
        "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3))}",
        "return {cmsgpack.unpack_limit('', 1)}",
        "return {cmsgpack.unpack_limit('\\147\\1', 1)}",
        "return cmsgpack.unpack_limit()",
        "local s = cmsgpack.pack({a = 1}, 'x', {1, {2}}) local out, off = {}, 0 " +
            "while off ~= -1 do local v off, v = cmsgpack.unpack_one(s, off) out[#out + 1] = cjson.encode(v) end return out",
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
