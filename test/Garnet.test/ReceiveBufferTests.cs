// The connection's receive buffer (Networking/ClientConnection) follows what the client sends: a deep pipeline that fills
// it grows it (up to PipelineReceiveSize), so the pipeline is read and answered in a few large steps; a client that goes
// back to single small requests gets a small buffer again. Checked through CLIENT LIST's rbs (the buffer's size).
using System.Text.RegularExpressions;
using Garnet.common.Networking;

namespace Garnet.test;

[TestFixture]
public class ReceiveBufferTests : ServerFixture
{
    private int ReceiveBufferOf(long id)
    {
        using var c = _server.Client();
        var list = c.Execute("CLIENT", "LIST", "ID", id.ToString()).Text!;
        return int.Parse(Regex.Match(list, @" rbs=(\d+)").Groups[1].Value);
    }

    [Test]
    public void DeepPipelinesGrowTheBufferAndSmallRequestsShrinkItBack()
    {
        using var raw = new RawResp(_server.Port);
        long id = long.Parse(System.Text.Encoding.ASCII.GetString(raw.Run("CLIENT", "ID")).Trim(':', '\r', '\n'));
        raw.Run("SET", "rb:k", "v");
        Assert.That(ReceiveBufferOf(id), Is.LessThanOrEqualTo(16 * 1024), "a new connection starts small");

        // 3,000 GETs (about 80 KB) per write: receives fill the buffer, which doubles each time up to the pipeline size.
        var pipeline = string.Concat(Enumerable.Repeat("*2\r\n$3\r\nGET\r\n$4\r\nrb:k\r\n", 3000));
        for (int round = 0; round < 20; round++)
        {
            raw.SendRaw(pipeline);
            for (int i = 0; i < 3000; i++) Assert.That(raw.Read(), Is.EqualTo("$1\r\nv\r\n"u8.ToArray()));
        }
        int grown = ReceiveBufferOf(id);
        Assert.That(grown, Is.GreaterThanOrEqualTo(32 * 1024), "full receives grew the buffer");
        Assert.That(grown, Is.LessThanOrEqualTo(ReceiveBuffer.PipelineReceiveSize * 2), "within the pipeline size (as rented)");

        // Single small requests: after runs of small receives the size halves, and the idle buffer follows it down.
        for (int i = 0; i < 400; i++) raw.Run("PING");
        Assert.That(ReceiveBufferOf(id), Is.LessThanOrEqualTo(16 * 1024), "small requests shrank it back");
    }
}
