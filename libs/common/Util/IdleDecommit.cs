// IdleDecommit: decides when the GC's committed-but-unused memory goes back to the OS after a burst. Under load the
// workstation GC keeps its allocation budget committed (tens of MB for a heap of a few MB: see performance.md, "Resident
// memory and allocation under the disk-bound load"), and nothing gives it back while the server idles. Once the server
// has been quiet for QuietMs and the surplus is large, one collection is asked of MemoryReclaimer (which runs it on its
// timer, aggressive when its pause budget allows, and so decommits).
// Invariants:
//  - At most one request per surplus: a new one needs traffic above QuietOpsPerSec first, or the committed memory to
//    have grown by MinSurplus again above the lowest figure seen since the last request (memory taken while the server
//    stayed quiet: a FLUSHALL's background purge, one large request or reply, a script). Without the second way, memory
//    taken after the first request of a quiet spell stayed until MEMORY PURGE.
//  - Pure decision from the figures passed in (the caller samples them), so tests need no clock or GC.
namespace Garnet.common.Util;

public sealed class IdleDecommit
{
    /// <summary>Below this many commands a second the server counts as quiet.</summary>
    public const long QuietOpsPerSec = 1000;
    /// <summary>How long it must stay quiet before memory is given back.</summary>
    public const long QuietMs = 2000;
    /// <summary>Committed bytes beyond the heap that make a collection worthwhile (and at least the heap's size).</summary>
    public const long MinSurplus = 32L << 20;

    private long _quietSinceMs = -1;
    private bool _requested;
    private long _committedFloor; // lowest committed figure since the last request

    /// <summary>True when a collection should be asked for now.</summary>
    public bool Check(long committedBytes, long heapBytes, long opsPerSec, long nowMs)
    {
        if (opsPerSec >= QuietOpsPerSec)
        {
            _quietSinceMs = -1;
            _requested = false;
            return false;
        }
        if (_quietSinceMs < 0) _quietSinceMs = nowMs;
        if (_requested)
        {
            _committedFloor = Math.Min(_committedFloor, committedBytes);
            if (committedBytes - _committedFloor < MinSurplus) return false;
            // Grown again since the last request: ask again once it has stayed quiet for QuietMs from now.
            _requested = false;
            _quietSinceMs = nowMs;
        }
        if (nowMs - _quietSinceMs < QuietMs) return false;
        if (committedBytes - heapBytes < Math.Max(MinSurplus, heapBytes)) return false;
        _requested = true;
        _committedFloor = committedBytes;
        return true;
    }
}
