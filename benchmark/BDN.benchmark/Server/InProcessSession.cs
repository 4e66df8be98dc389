// InProcessSession: a real RespServer and RespServerSession with no network traffic, for benchmarks.
// The server is constructed but never started: its store (StoreHost, with its background expiry task) exists,
// no listener is opened. The session runs on a DetachedChannel that runs its request loop as the epoll connection does
// (CanFinishLater), so it takes the server's paths (a GET's plain-read path). Run() does what the connection does with
// one receive: Process the input, then Output.Reset(releaseBuffer: true) where the loop would send, again while
// Process answers FlushAndContinue.
using System.Text;
using Garnet.common.Networking;
using Garnet.server;
using Garnet.server.Session;

namespace BDN.benchmark.Server;

public sealed class InProcessSession : IDisposable
{
    private readonly string _dir;
    private readonly InputBuffer _input = new();

    public InProcessSession(long memoryBytes = 64L << 20)
    {
        _dir = Directory.CreateTempSubdirectory("garnet-bdn-session-").FullName;
        Server = new RespServer(new ServerSettings { Dir = _dir, MemoryBytes = memoryBytes, Bind = ["127.0.0.1"], Port = 0 });
        Connection = new DetachedChannel(runsRequestLoop: true);
        Session = new RespServerSession(Server, Connection);
    }

    public RespServer Server { get; }
    public DetachedChannel Connection { get; }
    public RespServerSession Session { get; }

    /// <summary>Runs every request in batch; returns the reply bytes that would have been sent.</summary>
    public int Run(byte[] batch)
    {
        _input.Data = batch;
        _input.Start = 0;
        _input.End = batch.Length;
        int replied = 0;
        while (true)
        {
            var result = Session.Process(_input);
            var output = Session.Output;
            replied += output.Length;
            output.Reset(releaseBuffer: true); // where RunAsync sends
            if (result != ProcessResult.FlushAndContinue) break;
        }
        return replied;
    }

    /// <summary>Loads every key the RespBatch batches read (RespBatch.Load); throws unless each SET answered +OK.</summary>
    public void LoadBatchKeys()
    {
        string loaded = RunForText(RespBatch.Load());
        if (loaded != string.Concat(Enumerable.Repeat("+OK\r\n", RespBatch.Commands * (RespBatch.MGetKeys + 1))))
            throw new InvalidOperationException("loading the keys failed: " + loaded[..Math.Min(200, loaded.Length)]);
    }

    /// <summary>Runs batch and returns the replies as text (setup and checks only).</summary>
    public string RunForText(byte[] batch)
    {
        _input.Data = batch;
        _input.Start = 0;
        _input.End = batch.Length;
        var text = new StringBuilder();
        while (true)
        {
            var result = Session.Process(_input);
            text.Append(Encoding.UTF8.GetString(Session.Output.WrittenSpan));
            Session.Output.Reset(releaseBuffer: true);
            if (result != ProcessResult.FlushAndContinue) break;
        }
        if (_input.Count != 0) throw new InvalidOperationException("the batch was not consumed completely");
        return text.ToString();
    }

    public void Dispose()
    {
        Session.OnClosed();
        Server.Dispose();
        try { Directory.Delete(_dir, true); } catch { }
    }
}
