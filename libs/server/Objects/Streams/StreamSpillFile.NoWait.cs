// StreamSpillFile, reading a block only if the page cache has it (Linux preadv2 with RWF_NOWAIT): a copy from memory
// that never waits for the device, so the read-ahead can take a cached block at once instead of a round trip through
// the disk reader and the thread pool. EAGAIN (not cached, or only in part) means: read it asynchronously.
// Invariants:
//  - Never blocks on the device (the kernel refuses instead); a short read counts as a refusal.
//  - Where the call or the flag is missing (not Linux, an old kernel, a file system without support) it is tried
//    once and then never again.
using System.Runtime.InteropServices;

namespace Garnet.server.Objects.Streams;

public sealed unsafe partial class StreamSpillFile
{
    private const int RwfNoWait = 8, EAGAIN = 11;
    private volatile bool _noWaitUnsupported = !OperatingSystem.IsLinux();
    private long _noWaitReads;

    /// <summary>Off: the read-ahead reads every block through the disk reader (tests; process-wide).</summary>
    public static bool PageCacheFirst { get; set; } = true;

    /// <summary>Blocks the read-ahead took from the page cache without waiting (preadv2 RWF_NOWAIT).</summary>
    public long PageCacheReads => Interlocked.Read(ref _noWaitReads);

    private struct IoVec { public byte* Base; public nuint Length; }

    [LibraryImport("libc", SetLastError = true)]
    private static partial nint preadv2(int fd, IoVec* iov, int iovcnt, long offset, int flags);

    /// <summary>The block's bytes when the page cache holds all of them (no wait), else null.</summary>
    internal byte[]? TryReadFromPageCache(long offset, int length)
    {
        if (_noWaitUnsupported || !PageCacheFirst || length <= 0) return null;
        var bytes = new byte[length];
        bool added = false;
        try
        {
            _handle.DangerousAddRef(ref added);
            nint n;
            fixed (byte* p = bytes)
            {
                var iov = new IoVec { Base = p, Length = (nuint)length };
                n = preadv2((int)_handle.DangerousGetHandle(), &iov, 1, offset, RwfNoWait);
            }
            if (n == length)
            {
                Interlocked.Increment(ref _reads);
                Interlocked.Increment(ref _noWaitReads);
                CacheIfListed(offset, bytes);
                return bytes;
            }
            if (n < 0 && Marshal.GetLastPInvokeError() != EAGAIN) _noWaitUnsupported = true; // EOPNOTSUPP, ENOSYS, EINVAL
            return null;
        }
        catch (Exception ex) when (ex is DllNotFoundException or EntryPointNotFoundException)
        {
            _noWaitUnsupported = true;
            return null;
        }
        catch (ObjectDisposedException) { return null; }
        finally { if (added) _handle.DangerousRelease(); }
    }
}
