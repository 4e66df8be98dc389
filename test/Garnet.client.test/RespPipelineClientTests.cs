// RespPipelineClient against our server and against small fake servers: both receive modes, the observer,
// error counting, and failures (server closes, never answers, answers too much).
using System.Net;
using System.Net.Sockets;
using System.Text;

namespace Garnet.client.test;

[TestFixture]
public class RespPipelineClientTests
{
    private InProcessServer _server = null!;

    [OneTimeSetUp] public void Start() => _server = new InProcessServer();
    [OneTimeTearDown] public void Stop() => _server.Dispose();

    private RespConnectionOptions Options => new() { Port = _server.Port, TimeoutMs = 10000 };

    private sealed class Recorder : IReplyObserver
    {
        public readonly List<(long Seq, bool Error)> Seen = [];
        public void OnReply(long sequence, bool isError, long timestamp) => Seen.Add((sequence, isError));
    }

    [TestCase(true)]
    [TestCase(false)]
    public void CountsRepliesErrorsAndNulls(bool dedicatedReader)
    {
        var recorder = new Recorder();
        using var client = RespPipelineClient.Connect(Options, recorder, dedicatedReader);
        Assert.That(client.HasReaderThread, Is.EqualTo(dedicatedReader));
        var w = new RespCommandWriter();
        w.WriteCommand("SET"u8, "pc-key"u8, "v"u8);
        w.WriteCommand("GET"u8, "pc-key"u8);
        w.WriteCommand("GET"u8, "pc-missing"u8);
        w.WriteCommand("NOSUCHCOMMAND"u8);
        w.WriteCommand("PING"u8);
        client.Execute(w.Written, w.Commands);
        Assert.That(client.Replies, Is.EqualTo(5));
        Assert.That(client.ErrorReplies, Is.EqualTo(1));
        Assert.That(client.NullReplies, Is.EqualTo(1));
        Assert.That(client.FirstError, Does.StartWith("ERR unknown command"));
        Assert.That(recorder.Seen, Is.EqualTo(new[] { (0L, false), (1L, false), (2L, false), (3L, true), (4L, false) }));

        // A big pipelined batch (more than the socket buffers hold, so the reader thread matters when dedicated).
        w.Reset();
        for (int i = 0; i < 50_000; i++) w.WriteCommand("GET"u8, "pc-key"u8);
        client.Execute(w.Written, w.Commands);
        Assert.That(client.Replies, Is.EqualTo(50_005));
        Assert.That(client.ErrorReplies, Is.EqualTo(1));
        Assert.That(recorder.Seen, Has.Count.EqualTo(50_005));
    }

    [Test]
    public void LargeRepliesForALargeBatchDoNotDeadlock()
    {
        // 1,500,000 GETs of a 32-byte value: a 33 MB batch and 58 MB of replies, more than the kernel buffers both
        // ways (loopback autotuning here: up to 32 MB receive, 4 MB send). Our server stops reading while it sends,
        // so receiving on the sending thread deadlocks on this batch (checked: it times out); the reader thread
        // keeps draining replies while the batch is still being written.
        using (var c = _server.Client()) c.Execute("SET", "k", new string('x', 32));
        using var client = RespPipelineClient.Connect(Options);
        var w = new RespCommandWriter(34 << 20);
        for (int i = 0; i < 1_500_000; i++) w.WriteCommand("GET"u8, "k"u8);
        client.Execute(w.Written, w.Commands);
        Assert.That(client.Replies, Is.EqualTo(1_500_000));
        Assert.That(client.ErrorReplies, Is.EqualTo(0));
        Assert.That(client.NullReplies, Is.EqualTo(0));
    }

    [Test]
    public void AuthAndHelloHandshake()
    {
        using var secured = new InProcessServer(o => o.RequirePass = "s3cret");
        var w = new RespCommandWriter();
        w.WriteCommand("PING"u8);

        using (var ok = RespPipelineClient.Connect(new RespConnectionOptions { Port = secured.Port, Password = "s3cret", Protocol = 3 }))
        {
            ok.Execute(w.Written, 1);
            Assert.That(ok.ErrorReplies, Is.EqualTo(0));
            Assert.That(ok.Replies, Is.EqualTo(1), "AUTH and HELLO replies are not counted");
        }
        var wrong = Assert.Throws<IOException>(() => RespPipelineClient.Connect(new RespConnectionOptions { Port = secured.Port, Password = "nope" }))!;
        Assert.That(wrong.Message, Does.StartWith("AUTH failed: WRONGPASS"));
        using var none = RespPipelineClient.Connect(new RespConnectionOptions { Port = secured.Port });
        none.Execute(w.Written, 1);
        Assert.That(none.ErrorReplies, Is.EqualTo(1));
        Assert.That(none.FirstError, Does.StartWith("NOAUTH"));
    }

    /// <summary>A fake server: accepts one client and runs <paramref name="serve"/> on its socket.</summary>
    private static (int Port, Task Task) FakeServer(Action<Socket> serve)
    {
        var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        int port = ((IPEndPoint)listener.LocalEndpoint).Port;
        var task = Task.Run(() =>
        {
            using var s = listener.AcceptSocket();
            listener.Stop();
            serve(s);
        });
        return (port, task);
    }

    [TestCase(true)]
    [TestCase(false)]
    public void ServerThatNeverAnswersTimesOut(bool dedicatedReader)
    {
        using var release = new ManualResetEventSlim();
        var (port, task) = FakeServer(s => release.Wait(10000));
        using (var client = RespPipelineClient.Connect(new RespConnectionOptions { Port = port, TimeoutMs = 300 }, null, dedicatedReader))
        {
            client.Send("*1\r\n$4\r\nPING\r\n"u8, 1);
            var ex = Assert.Throws<TimeoutException>(() => client.WaitForReplies(1))!;
            Assert.That(ex.Message, Does.Contain("1 of 1 replies still missing"));
        }
        release.Set();
        task.Wait(5000);
    }

    [TestCase(true)]
    [TestCase(false)]
    public void ServerClosingMidReplyFailsTheWait(bool dedicatedReader)
    {
        var (port, task) = FakeServer(s =>
        {
            var buf = new byte[100];
            s.Receive(buf);
            s.Send("+OK\r\n$10\r\nabc"u8.ToArray());
            s.Shutdown(SocketShutdown.Both);
        });
        using var client = RespPipelineClient.Connect(new RespConnectionOptions { Port = port, TimeoutMs = 5000 }, null, dedicatedReader);
        client.Send("*1\r\n$4\r\nPING\r\n*1\r\n$4\r\nPING\r\n"u8, 2);
        var ex = Assert.Catch<IOException>(() => client.WaitForReplies(2))!;
        Assert.That(ex.Message, Does.Contain("connection closed by the server"));
        Assert.That(client.Replies, Is.EqualTo(1));
        task.Wait(5000);
    }

    [Test]
    public void MoreRepliesThanRequestsIsAFault()
    {
        using var release = new ManualResetEventSlim();
        var (port, task) = FakeServer(s =>
        {
            var buf = new byte[100];
            s.Receive(buf);
            s.Send("+OK\r\n+EXTRA\r\n"u8.ToArray());
            release.Wait(10000); // the connection stays open until the client has seen the extra reply
        });
        using var client = RespPipelineClient.Connect(new RespConnectionOptions { Port = port, TimeoutMs = 5000 });
        client.Send("*1\r\n$4\r\nPING\r\n"u8, 1);
        Assert.That(() => { client.WaitForReplies(2); }, Throws.InstanceOf<IOException>().With.Message.Contains("2 replies for 1 requests"));
        release.Set();
        task.Wait(5000);
    }

    [Test]
    public void RepliesSplitAcrossReceivesAreCountedOnce()
    {
        // The fake server dribbles a reply stream out a few bytes at a time.
        var replies = Encoding.ASCII.GetBytes(string.Concat(Enumerable.Repeat("*2\r\n$5\r\nhello\r\n-ERR x\r\n:7\r\n$-1\r\n+OK\r\n", 50)));
        using var release = new ManualResetEventSlim();
        var (port, task) = FakeServer(s =>
        {
            var buf = new byte[100_000];
            int got = 0;
            while (got < 200 * 14) got += s.Receive(buf);
            for (int i = 0; i < replies.Length; i += 3)
            {
                s.Send(replies.AsSpan(i, Math.Min(3, replies.Length - i)));
                if (i % 60 == 0) Thread.Sleep(1);
            }
            release.Wait(10000); // the connection stays open until the client has counted every reply
        });
        using var client = RespPipelineClient.Connect(new RespConnectionOptions { Port = port, TimeoutMs = 5000 });
        var w = new RespCommandWriter();
        for (int i = 0; i < 200; i++) w.WriteCommand("PING"u8);
        client.Execute(w.Written, w.Commands);
        release.Set();
        Assert.That(client.Replies, Is.EqualTo(200));
        Assert.That(client.ErrorReplies, Is.EqualTo(50), "one of the two elements of each array is an error");
        Assert.That(client.NullReplies, Is.EqualTo(50));
        Assert.That(client.FirstError, Is.EqualTo("ERR x"));
        task.Wait(5000);
    }
}
