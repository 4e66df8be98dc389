// LargeBuffers: byte arrays for request, reply and I/O buffers. Small ones come from ArrayPool<byte>.Shared; large ones
// (more than PoolLimit bytes) are allocated for the caller and dropped on Return, because the shared pool keeps every
// array it is given for as long as the process lives (per thread and per core), so one 200 MB request would pin
// 256 MB for good. Dropped arrays are reported to MemoryReclaimer, which makes the GC give the memory back.
using System.Buffers;

namespace Garnet.common.Util;

public static class LargeBuffers
{
    /// <summary>Arrays up to this size are pooled; larger ones are not.</summary>
    public const int PoolLimit = 1 << 20;

    /// <summary>An array of at least size bytes (exactly size when above PoolLimit); contents are undefined.</summary>
    public static byte[] Rent(int size) =>
        size <= PoolLimit ? ArrayPool<byte>.Shared.Rent(size) : GC.AllocateUninitializedArray<byte>(size);

    /// <summary>Gives back an array from Rent (an empty array is ignored).</summary>
    public static void Return(byte[] array)
    {
        if (array.Length == 0) return;
        if (array.Length <= PoolLimit) ArrayPool<byte>.Shared.Return(array);
        else MemoryReclaimer.Released(array.Length);
    }
}
