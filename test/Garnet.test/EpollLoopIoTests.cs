// EpollLoop and its ILoopIo (the loop's own disk-read ring in the server): the order in which a round drives it. A fake
// ILoopIo and a request handler write one shared log; the server's real ring is covered by LoopReadRingTests and
// DiskGetTests.
using System.Net;
using System.Net.Sockets;
using System.Runtime.InteropServices;
using Garnet.common.Networking;
using Garnet.common.Networking.Epoll;
using Garnet.common.Resp;

namespace Garnet.test;

public class EpollLoopIoTests
{
    [DllImport("libc", SetLastError = true)]
    private static extern int eventfd(uint initval, int flags);

    [DllImport("libc")]
    private static extern int close(int fd);

    private sealed class RecordingIo(List<string> log) : ILoopIo
    {
        public int EventFd { get; } = eventfd(0, 0x80800); // EFD_NONBLOCK | EFD_CLOEXEC
        public void Attach() { }
        public void Detach() { }
        public void SubmitStarted() { lock (log) log.Add("submit"); }
        public bool BeforeWait() { lock (log) log.Add("wait"); return true; }
        public void Poll() { lock (log) log.Add("poll"); }
        public void Dispose() => close(EventFd);
    }

    /// <summary>Answers +OK to each line of bytes it is given (a request is "x\r\n"); "s\r\n" first holds the loop for
    /// 30 ms, so the requests sent meanwhile are ready together in its next round.</summary>
    private sealed class OkPerLine(List<string> log) : IRequestHandler
    {
        public RespWriter Output { get; } = new();
        public long MinBytesHint => 0;

        public ProcessResult Process(InputBuffer input)
        {
            int nl;
            while ((nl = input.Unconsumed.IndexOf((byte)'\n')) >= 0)
            {
                if (input.Unconsumed[0] == (byte)'s') Thread.Sleep(30);
                lock (log) log.Add("request");
                Output.WriteOk();
                input.Start += nl + 1;
            }
            return ProcessResult.NeedMoreData;
        }

        public void OnIdle() { }
        public void OnClosed() { }
    }

    [Test, CancelAfter(30_000)]
    public void ARoundHandsItsStartedWorkOverBeforeItCompletesAndReplies()
    {
        if (!EpollNetwork.IsSupported) Assert.Ignore("epoll is Linux only");
        var log = new List<string>();
        using var network = new EpollNetwork(1, null, () => new RecordingIo(log));
        using var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        listener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        listener.Listen();

        // 40 clients, so a round holds more than 16 ready connections (the loop hands work over every 16 events).
        var clients = new List<Socket>();
        for (int i = 0; i < 40; i++)
        {
            var client = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
            client.Connect(listener.LocalEndPoint!);
            var accepted = listener.Accept();
            network.Accept(accepted, new RespLimits(), null, null).Start(new OkPerLine(log));
            clients.Add(client);
        }
        var reply = new byte[16];
        for (int round = 0; round < 10; round++)
        {
            clients[0].Send("s\r\n"u8);
            Thread.Sleep(5); // the loop is in the 30 ms hold now (a late start only makes the next round larger)
            foreach (var c in clients.Skip(1)) c.Send("x\r\n"u8);
            foreach (var c in clients)
            {
                int got = 0;
                while (got < 5) got += c.Receive(reply, got, 5 - got, SocketFlags.None);
                Assert.That(System.Text.Encoding.ASCII.GetString(reply, 0, 5), Is.EqualTo("+OK\r\n"));
            }
        }
        foreach (var c in clients) c.Dispose();

        string[] calls;
        lock (log) calls = log.ToArray();
        // After a round's requests ran, the loop hands their work over (SubmitStarted) before it completes finished work
        // (Poll) and writes the replies: the first loop call after each request is never Poll or the next wait.
        int requests = 0;
        for (int i = 0; i < calls.Length; i++)
        {
            if (calls[i] != "request") continue;
            requests++;
            var next = calls.Skip(i + 1).FirstOrDefault(c => c != "request");
            Assert.That(next, Is.EqualTo("submit"), $"the loop call after request {requests} (call {i})");
        }
        Assert.That(requests, Is.EqualTo(40 * 10));
        // Rounds that held more than 16 ready connections handed work over between their requests too.
        bool midRound = Enumerable.Range(1, calls.Length - 2).Any(i => calls[i] == "submit" && calls[i - 1] == "request" && calls[i + 1] == "request");
        Assert.That(midRound, Is.True, "some round handed its work over between two of its requests");
    }
}
