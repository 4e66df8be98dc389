// TestServer: an in-process server on a free loopback port, for one test fixture.
using Garnet.client;
using Garnet.Options;
using StackExchange.Redis;

namespace Garnet.test;

public sealed class TestServer : IDisposable
{
    public GarnetServer Server { get; }
    public int Port => Server.Port;
    public string Dir { get; }

    private readonly bool _ownsDir;

    /// <summary>A server on a fresh temporary directory (deleted at Dispose), or on dir (kept, for restarts).</summary>
    public TestServer(Action<GarnetServerOptions>? configure = null, string? dir = null)
    {
        _ownsDir = dir is null;
        Dir = dir ?? Path.Combine(Path.GetTempPath(), "garnet-test-" + Guid.NewGuid().ToString("N"));
        // No checkpoints unless a test asks for them (they would only slow the disposal of a throw-away directory).
        var options = new GarnetServerOptions { Port = 0, Bind = "127.0.0.1", Dir = Dir, Save = "" };
        configure?.Invoke(options);
        Server = new GarnetServer(options);
        Server.Start();
    }

    public RespClient Client(int timeoutMs = 10000) => new("127.0.0.1", Port, timeoutMs);

    /// <summary>
    /// A StackExchange.Redis connection speaking <paramref name="protocol"/>. The client falls back to RESP2 when
    /// HELLO 3 fails, so this asserts the protocol it ended up with: a RESP3 test cannot quietly run over RESP2.
    /// </summary>
    public ConnectionMultiplexer Multiplexer(RedisProtocol protocol, string? extra = null)
    {
        string proto = protocol == RedisProtocol.Resp3 ? "resp3" : "resp2";
        var mux = ConnectionMultiplexer.Connect($"127.0.0.1:{Port},allowAdmin=true,connectTimeout=10000,syncTimeout=10000,protocol={proto}{extra}");
        var negotiated = mux.GetServer(mux.GetEndPoints()[0]).Protocol;
        if (negotiated != protocol)
        {
            mux.Dispose();
            Assert.Fail($"asked StackExchange.Redis for {protocol}, the connection speaks {negotiated}");
        }
        return mux;
    }

    public void Dispose()
    {
        Server.Dispose();
        if (_ownsDir) try { Directory.Delete(Dir, true); } catch { }
    }
}

public static class RespAssert
{
    public static void Error(RespValue v, string expected)
    {
        Assert.That(v.Type, Is.EqualTo(RespType.Error), $"expected error '{expected}', got {v}");
        Assert.That(v.Text, Is.EqualTo(expected));
    }

    public static void Simple(RespValue v, string expected)
    {
        Assert.That(v.Type, Is.EqualTo(RespType.SimpleString), $"expected +{expected}, got {v}");
        Assert.That(v.Text, Is.EqualTo(expected));
    }

    public static void Bulk(RespValue v, string expected)
    {
        Assert.That(v.Type, Is.EqualTo(RespType.BulkString), $"expected bulk '{expected}', got {v}");
        Assert.That(v.Text, Is.EqualTo(expected));
    }

    public static void Integer(RespValue v, long expected)
    {
        Assert.That(v.Type, Is.EqualTo(RespType.Integer), $"expected :{expected}, got {v}");
        Assert.That(v.Integer, Is.EqualTo(expected));
    }

    /// <summary>Reads a RESP2 array-of-pairs or RESP3 map into a dictionary.</summary>
    public static Dictionary<string, RespValue> Map(RespValue v)
    {
        Assert.That(v.Elements, Is.Not.Null, $"expected a map, got {v}");
        var d = new Dictionary<string, RespValue>();
        for (int i = 0; i + 1 < v.Elements!.Length; i += 2) d[v.Elements[i].Text!] = v.Elements[i + 1];
        return d;
    }
}
