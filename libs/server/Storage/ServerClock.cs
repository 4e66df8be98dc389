// ServerClock: the time the server judges expiry by (the engine's clock, TTL replies, relative expiries). Normally the
// wall clock; while the AOF is replayed it is set to the time each block was written, so a replayed command sees keys
// expired or alive as the original did (to within the few milliseconds a block spans).
namespace Garnet.server.Storage;

public sealed class ServerClock
{
    private long _override; // Unix ms, 0: the wall clock

    public long NowMs
    {
        get
        {
            long o = Volatile.Read(ref _override);
            return o != 0 ? o : DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
        }
    }

    /// <summary>Makes NowMs read unixMs until Release (replay only, before the server takes clients).</summary>
    public void Set(long unixMs) => Volatile.Write(ref _override, unixMs);

    public void Release() => Volatile.Write(ref _override, 0);
}
