// SecondClientWatch: another client that keeps PINGing the server on its own connection while a hostile trigger runs,
// and says afterwards whether it was served: every PING answered (PONG, or any error reply such as BUSY, is an answer)
// and the slowest answer within a bound.
// Invariants: one connection and one thread per watch; every PING waits at most ReplyTimeout, so Stop returns within
// about that; the watch connects and is answered once before Start returns, and PINGs once more after Stop, so a
// trigger that ends before the first periodic PING is still measured by that last one.
using System.Diagnostics;
using Garnet.client;

namespace Garnet.test.Security;

public sealed class SecondClientWatch : IDisposable
{
    public static readonly TimeSpan ReplyTimeout = TimeSpan.FromSeconds(10);

    private readonly RespClient _client;
    private readonly Thread _thread;
    private volatile bool _stop;
    private long _slowestTicks;
    private int _pings;
    private string? _failure;

    private SecondClientWatch(int port, string? password)
    {
        _client = new RespClient("127.0.0.1", port, (int)ReplyTimeout.TotalMilliseconds);
        if (password is not null) _client.Execute("AUTH", password);
        Ping();
        _thread = new Thread(Loop) { IsBackground = true, Name = "second-client-watch" };
        _thread.Start();
    }

    /// <summary>Connects a second client (authenticated when password is given) and starts PINGing every few ms.</summary>
    public static SecondClientWatch Start(int port, string? password = null) => new(port, password);

    public TimeSpan Slowest => TimeSpan.FromTicks(Interlocked.Read(ref _slowestTicks));
    public int Pings => _pings;

    private void Loop()
    {
        while (!_stop && _failure is null)
        {
            Ping();
            Thread.Sleep(5);
        }
    }

    private void Ping()
    {
        var sw = Stopwatch.StartNew();
        try
        {
            var reply = _client.Execute("PING");
            if (reply.Type != RespType.SimpleString && !reply.IsError) _failure ??= $"PING got {reply}";
        }
        catch (Exception e) when (e is IOException or System.Net.Sockets.SocketException)
        {
            _failure ??= $"PING got no reply within {ReplyTimeout.TotalSeconds:0} s ({e.GetType().Name}: {e.Message})";
        }
        long ticks = sw.Elapsed.Ticks;
        long seen;
        while (ticks > (seen = Interlocked.Read(ref _slowestTicks)) && Interlocked.CompareExchange(ref _slowestTicks, ticks, seen) != seen) { }
        Interlocked.Increment(ref _pings);
    }

    /// <summary>Stops the periodic PINGs, PINGs once more, and fails the test unless every PING was answered within bound.</summary>
    public void AssertServedWithin(TimeSpan bound, string during)
    {
        Stop();
        if (_failure is null) Ping();
        Assert.That(_failure, Is.Null, $"second client while {during}: {_failure}");
        Assert.That(Slowest, Is.LessThanOrEqualTo(bound),
            $"second client while {during}: slowest of {Pings} PINGs took {Slowest.TotalMilliseconds:0} ms (bound {bound.TotalMilliseconds:0} ms)");
    }

    private void Stop()
    {
        _stop = true;
        _thread.Join(ReplyTimeout + TimeSpan.FromSeconds(2));
    }

    public void Dispose()
    {
        Stop();
        _client.Dispose();
    }
}
