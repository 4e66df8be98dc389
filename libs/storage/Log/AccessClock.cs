// AccessClock: the time a record was last accessed is kept in Unix seconds (uint32, good until 2106), read from this
// clock. Environment.TickCount64 is cheap to read; the Unix time is fixed once per process, so the clock never runs
// backwards even when the wall clock is stepped (a stepped clock shifts idle times until restart, as in Redis).
namespace Garnet.storage.Log;

public static class AccessClock
{
    private static readonly long s_baseUnixSeconds = DateTimeOffset.UtcNow.ToUnixTimeSeconds();
    private static readonly long s_baseTickMs = Environment.TickCount64;

    public static uint NowSeconds => (uint)(s_baseUnixSeconds + (Environment.TickCount64 - s_baseTickMs) / 1000);
}
