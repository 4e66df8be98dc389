// ReadBufferPool: the aligned native buffers of record reads that ops give back when their connection goes idle, kept
// for the next read. Without it, at pipeline 1 every connection went idle after each request, returned its op's buffer
// to the C heap and took a new one for its next key on disk: memalign and free were 2% of the server's CPU in
// disk-bound GETs (perf, docs/performance.md "Disk reads without allocation").
// Invariants:
//  - Pools only buffers of exactly BufferSize bytes, aligned to 4 KiB; holds at most MaxPooled of them (1 MiB in all);
//    a buffer given back to a full pool is freed.
//  - A buffer is either in the pool or owned by one BufferedDeviceRead, never both; one lock guards the stack (taken
//    once per rent or return, uncontended in the usual case of one or two network loops).
using System.Runtime.InteropServices;

namespace Garnet.storage.Devices;

public static unsafe class ReadBufferPool
{
    /// <summary>Bytes of a pooled buffer: a record read of up to two 4 KiB blocks (most records of a few hundred bytes).</summary>
    public const int BufferSize = 8192;
    public const int Alignment = 4096;
    private const int MaxPooled = 128;

    private static readonly nint[] s_stack = new nint[MaxPooled];
    private static int s_count;
    private static readonly object s_gate = new();

    /// <summary>Buffers the pool holds now.</summary>
    public static int Pooled => Volatile.Read(ref s_count);

    /// <summary>A buffer of BufferSize bytes (from the pool, else newly allocated).</summary>
    internal static byte* Rent()
    {
        lock (s_gate)
            if (s_count > 0) return (byte*)s_stack[--s_count];
        return (byte*)NativeMemory.AlignedAlloc(BufferSize, Alignment);
    }

    /// <summary>Takes back a buffer Rent gave (freed when the pool is full).</summary>
    internal static void Return(byte* buffer)
    {
        lock (s_gate)
            if (s_count < MaxPooled) { s_stack[s_count++] = (nint)buffer; return; }
        NativeMemory.AlignedFree(buffer);
    }
}
