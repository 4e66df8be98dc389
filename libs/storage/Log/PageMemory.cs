// PageMemory: the memory of log page frames, taken from the OS directly (mmap/munmap on Linux) rather than from malloc.
// Frames are large and are given back and taken again as the memory budget moves; through glibc's malloc that churn
// raises its dynamic mmap threshold, after which frames come from per-thread arenas that keep freed memory resident
// (measured: 1.3 GB resident for a 64 MB budget after a TTL workload). Memory handed out here is page-aligned and zeroed;
// Free gives it back to the OS at once, and Discard drops the pages of a range that is kept (they read as zero again).
// The hash index takes its tables and overflow chunks here too (tables of 2 MB or more on transparent huge pages:
// AllocateRandomAccess). Elsewhere (Windows, macOS, or if mmap is unavailable)
// it is aligned malloc, and Discard zeroes the range instead.
using System.Runtime.InteropServices;

namespace Garnet.storage.Log;

internal static unsafe partial class PageMemory
{
    private const int ProtRead = 1, ProtWrite = 2, MapPrivate = 2, MapAnonymous = 0x20, MadvDontNeed = 4, MadvHugePage = 14;
    private const long HugePage = 2L << 20;
    private static readonly bool s_useMmap = OperatingSystem.IsLinux();

    /// <summary>Zeroed memory of length bytes, aligned to at least 4096.</summary>
    public static byte* Allocate(long length)
    {
        if (s_useMmap)
        {
            nint p = mmap(0, (nuint)length, ProtRead | ProtWrite, MapPrivate | MapAnonymous, -1, 0);
            if (p != -1) return (byte*)p;
            throw new OutOfMemoryException($"mmap of {length} bytes failed (errno {Marshal.GetLastPInvokeError()})");
        }
        var q = (byte*)NativeMemory.AlignedAlloc((nuint)length, 4096);
        NativeMemory.Clear(q, (nuint)length);
        return q;
    }

    /// <summary>
    /// As Allocate, for memory read at random (the hash index's tables): a length of 2 MB or more is aligned to 2 MB and
    /// advised for transparent huge pages, so a lookup's bucket costs no TLB miss (with 4 KB pages each lookup of a
    /// large table touches a page of its own). Where the kernel gives none (THP off), it is ordinary memory. Free as usual.
    /// </summary>
    public static byte* AllocateRandomAccess(long length)
    {
        if (!s_useMmap || length < HugePage) return Allocate(length);
        nint p = mmap(0, (nuint)(length + HugePage), ProtRead | ProtWrite, MapPrivate | MapAnonymous, -1, 0);
        if (p == -1) return Allocate(length);
        nint aligned = (nint)(((long)p + HugePage - 1) & ~(HugePage - 1));
        if (aligned > p) munmap(p, (nuint)(aligned - p));
        long tail = (long)p + length + HugePage - ((long)aligned + length);
        if (tail > 0) munmap(aligned + (nint)length, (nuint)tail);
        madvise(aligned, (nuint)length, MadvHugePage); // advice only: failure leaves 4 KB pages
        return (byte*)aligned;
    }

    /// <summary>Gives memory from Allocate (of the same length) back.</summary>
    public static void Free(byte* pointer, long length)
    {
        if (s_useMmap) munmap((nint)pointer, (nuint)length);
        else NativeMemory.AlignedFree(pointer);
    }

    /// <summary>Makes a page-aligned range of memory from Allocate zero and (with mmap) no longer resident; it stays usable.</summary>
    public static void Discard(byte* pointer, long length)
    {
        if (!s_useMmap || madvise((nint)pointer, (nuint)length, MadvDontNeed) != 0) NativeMemory.Clear(pointer, (nuint)length);
    }

    [LibraryImport("libc", SetLastError = true)]
    private static partial nint mmap(nint addr, nuint length, int prot, int flags, int fd, nint offset);

    [LibraryImport("libc", SetLastError = true)]
    private static partial int munmap(nint addr, nuint length);

    [LibraryImport("libc", SetLastError = true)]
    private static partial int madvise(nint addr, nuint length, int advice);
}
