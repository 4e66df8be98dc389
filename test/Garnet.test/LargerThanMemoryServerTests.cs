using Garnet.client;
using Garnet.Options;

namespace Garnet.test;

/// <summary>The server on a small memory budget: ten times the budget written through RESP comes back intact.</summary>
[TestFixture]
public class LargerThanMemoryServerTests : ServerFixture
{
    protected override void Configure(GarnetServerOptions options) => options.Memory = "8mb";

    [Test]
    public void WriteTenTimesTheBudgetAndReadItBack()
    {
        const int keys = 90_000, batch = 500;
        static string Value(int i) => $"value-{i}-" + new string((char)('a' + i % 26), 1000);
        using var c = new RespClient("127.0.0.1", _server.Port, 60_000);
        for (int start = 0; start < keys; start += batch)
        {
            for (int i = start; i < start + batch; i++) c.Send("SET", "big:" + i, Value(i));
            for (int i = start; i < start + batch; i++) Assert.That(c.Read().Text, Is.EqualTo("OK"));
        }
        Assert.That(c.Execute("DBSIZE").Integer, Is.EqualTo(keys));
        var store = _server.Server.Server.Store.Store;
        long written = store.Log.TailAddress;
        TestContext.Out.WriteLine($"log {written >> 20} MiB, in memory from {store.Log.HeadAddress >> 20} MiB, memory {store.MemoryBytes >> 20} MiB");
        Assert.That(written, Is.GreaterThan(10L * 8 * 1024 * 1024), "ten times the budget went through the log");
        Assert.That(store.Log.HeadAddress, Is.GreaterThan(written / 2), "most of it left memory");

        int wrong = 0;
        for (int start = 0; start < keys; start += batch)
        {
            for (int i = start; i < start + batch; i++) c.Send("GET", "big:" + i);
            for (int i = start; i < start + batch; i++) if (c.Read().Text != Value(i)) wrong++;
        }
        Assert.That(wrong, Is.EqualTo(0));
        Assert.That(c.Execute("DBSIZE").Integer, Is.EqualTo(keys));
    }
}
